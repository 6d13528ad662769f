#include "io/tracefs.hpp"

#include <sys/statfs.h>

#include <charconv>
#include <cstdlib>

#include "io/system_error.hpp"
#include "io/unique_fd.hpp"

namespace arec::io::tracefs {
namespace {

constexpr long tracefs_magic = 0x74726163;

bool is_tracefs(const char* path) {
  struct statfs fs {};
  return ::statfs(path, &fs) == 0 && fs.f_type == tracefs_magic;
}

}  // namespace

std::optional<std::string> find_root() {
  if (const char* env = std::getenv("TRACEFS_PATH"); env && is_tracefs(env)) return env;
  for (const char* candidate : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"})
    if (is_tracefs(candidate)) return candidate;
  return std::nullopt;
}

std::string read_file(std::string_view root, std::string_view relative_path) {
  std::string path{root};
  path += '/';
  path += relative_path;
  unique_fd fd = unique_fd::open(path.c_str(), O_RDONLY);
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = retry_on_eintr([&] { return ::read(fd.get(), buffer, sizeof buffer); });
    if (n < 0) throw_errno("read", path);
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

std::uint64_t read_tracepoint_id(std::string_view root, std::string_view system,
                                 std::string_view event) {
  std::string relative = "events/";
  relative += system;
  relative += '/';
  relative += event;
  relative += "/id";
  std::string text = read_file(root, relative);
  std::uint64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc{} || end == text.data())
    throw std::runtime_error("unreadable tracepoint id in " + std::string(root) + "/" + relative);
  return id;
}

}  // namespace arec::io::tracefs
