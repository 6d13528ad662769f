#include "host/proc_status.hpp"

#include <charconv>

namespace arec::host {
namespace {

int parse_pid(std::string_view value) {
  auto digits = value.find_first_not_of(" \t");
  if (digits == std::string_view::npos) return -1;
  value.remove_prefix(digits);
  int pid = -1;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), pid);
  return ec == std::errc{} ? pid : -1;
}

// The kernel prints the name with seq_escape_str(..., "\n\\"): only newline and backslash are
// escaped, so every '\' starts a two-character escape.
void decode_name(std::string_view value, task_status& status) {
  std::size_t size = 0;
  for (std::size_t i = 0; i < value.size() && size < status.comm.size() - 1; ++i) {
    char c = value[i];
    if (c == '\\' && i + 1 < value.size()) {
      char escaped = value[++i];
      c = escaped == 'n' ? '\n' : escaped;
    }
    status.comm[size++] = c;
  }
  status.comm[size] = '\0';
  status.comm_size = size;
}

}  // namespace

task_status parse_task_status(std::string_view text) {
  task_status status;
  while (!text.empty()) {
    auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    if (key == "Name") {
      // "Name:\t%s": drop only the tab, so a name that starts with spaces keeps them.
      if (value.starts_with('\t')) value.remove_prefix(1);
      decode_name(value, status);
    } else if (key == "Tgid") {
      status.tgid = parse_pid(value);
    } else if (key == "PPid") {
      status.ppid = parse_pid(value);
    } else if (key == "VmPeak") {
      status.has_vm_peak = true;
    } else if (key == "Threads") {
      status.has_threads = true;
    }
  }
  return status;
}

}  // namespace arec::host
