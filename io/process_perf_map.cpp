#include "io/process_perf_map.hpp"

#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <optional>
#include <string_view>

#include "io/small_file.hpp"
#include "io/system_error.hpp"

namespace arec::io {
namespace {

// The last number on the status line that starts with `key` ("NSpid:", "Uid:" ...), or the
// `index`th one when `index` is given.
std::optional<long> status_number(std::string_view status, std::string_view key,
                                  std::optional<std::size_t> index = std::nullopt) {
  std::size_t at = status.find(key);
  while (at != std::string_view::npos && at != 0 && status[at - 1] != '\n')
    at = status.find(key, at + 1);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view line = status.substr(at + key.size());
  line = line.substr(0, line.find('\n'));
  std::optional<long> found;
  for (std::size_t n = 0; !line.empty(); ++n) {
    std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    long value = 0;
    auto [end, error] = std::from_chars(line.data(), line.data() + line.size(), value);
    if (error != std::errc{}) break;
    line.remove_prefix(static_cast<std::size_t>(end - line.data()));
    found = value;
    if (index && n == *index) return found;
  }
  return index ? std::nullopt : found;
}

std::string owner_problem(const struct stat& status, uid_t process_user) {
  uid_t owner = status.st_uid;
  if (owner != process_user && owner != 0 && owner != ::geteuid())
    return "is owned by uid " + std::to_string(owner) + ", not by the process's user (uid " +
           std::to_string(process_user) + "), root or the user running arec";
  if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0) return "may be written by group or others";
  return {};
}

unique_fd open_in_root(int root, const std::string& path) {
  open_how how{};
  how.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  long fd = ::syscall(SYS_openat2, root, path.c_str() + 1, &how, sizeof how);
  return unique_fd{static_cast<int>(fd)};
}

}  // namespace

process_perf_map open_process_perf_map(pid_t pid, const proc_root& proc) {
  process_perf_map map;
  std::string task = proc.path + "/" + std::to_string(pid);
  std::array<char, 4096> buffer;
  std::optional<std::string_view> status =
      read_small_file(AT_FDCWD, (task + "/status").c_str(), buffer);
  if (!status) return map;
  std::optional<long> own_pid = status_number(*status, "NSpid:");
  std::optional<long> user = status_number(*status, "Uid:", 1);  // effective
  if (!own_pid || !user) return map;
  map.path = "/tmp/perf-" + std::to_string(*own_pid) + ".map";
  unique_fd root{::open((task + "/root").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
  if (!root) return map;  // gone, or not ours to look into
  unique_fd file = open_in_root(root.get(), map.path);
  if (!file) {
    if (errno == ELOOP) map.problem = "is a symbolic link";
    return map;  // ENOENT: no map; ENOSYS: a kernel before 5.6
  }
  struct stat about {};
  check_syscall(::fstat(file.get(), &about), "fstat", task + "/root" + map.path);
  if (!S_ISREG(about.st_mode))
    map.problem = "is not a regular file";
  else
    map.problem = owner_problem(about, static_cast<uid_t>(*user));
  if (map.problem.empty()) map.fd = std::move(file);
  return map;
}

}  // namespace arec::io
