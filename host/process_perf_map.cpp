#include "host/process_perf_map.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

#include "base/system_error.hpp"
#include "io/small_file.hpp"
#include "perf_data/perf_maps_feature.hpp"

namespace arec::host {
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

// Opens `dir` (absolute, as the process names it) inside `root`: links resolve within it.
io::unique_fd open_dir_in_root(int root, const std::string& dir) {
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  long fd = ::syscall(SYS_openat2, root, dir.c_str() + 1, &how, sizeof how);
  return io::unique_fd{static_cast<int>(fd)};
}

// Opens `name` in `dir` only when it is neither a link nor a mount of its own (EXDEV).
io::unique_fd open_on_same_mount(int dir, const std::string& name) {
  open_how how{};
  how.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  long fd = ::syscall(SYS_openat2, dir, name.c_str(), &how, sizeof how);
  return io::unique_fd{static_cast<int>(fd)};
}

std::string uid_list(std::span<const uid_t> uids) {
  std::vector<uid_t> distinct;
  for (uid_t uid : uids)
    if (std::find(distinct.begin(), distinct.end(), uid) == distinct.end()) distinct.push_back(uid);
  std::string text;
  for (uid_t uid : distinct) text += (text.empty() ? " " : ", ") + std::to_string(uid);
  return text;
}

}  // namespace

std::string perf_map_problem(const struct stat& status, std::span<const uid_t> owners,
                             std::string_view whose) {
  if (!S_ISREG(status.st_mode)) return "is not a regular file";
  if (std::find(owners.begin(), owners.end(), status.st_uid) == owners.end())
    return "is owned by uid " + std::to_string(status.st_uid) + ", not by " + std::string(whose) +
           " (uid" + uid_list(owners) + ")";
  if ((status.st_mode & S_IRUSR) == 0)
    return "is not readable by its owner (mode " + io::octal_mode(status.st_mode) + ")";
  if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return "may be written by group or others (mode " + io::octal_mode(status.st_mode) + ")";
  return {};
}

namespace {

std::optional<std::string_view> read_status(const std::string& task, std::span<char> buffer) {
  return io::read_small_file(AT_FDCWD, (task + "/status").c_str(), buffer);
}

std::optional<std::array<uid_t, 4>> uids_of(std::string_view status) {
  std::array<uid_t, 4> uids{};
  for (std::size_t i = 0; i < uids.size(); ++i) {
    std::optional<long> user = status_number(status, "Uid:", i);
    if (!user) return std::nullopt;
    uids[i] = static_cast<uid_t>(*user);
  }
  return uids;
}

}  // namespace

std::optional<std::array<uid_t, 4>> process_uids(pid_t pid, const proc_root& proc) {
  std::array<char, 4096> buffer;
  std::optional<std::string_view> status =
      read_status(proc.path + "/" + std::to_string(pid), buffer);
  return status ? uids_of(*status) : std::nullopt;
}

std::optional<perf_map_place> find_perf_map_place(pid_t pid, const proc_root& proc) {
  std::string task = proc.path + "/" + std::to_string(pid);
  std::array<char, 4096> buffer;
  std::optional<std::string_view> status = read_status(task, buffer);
  if (!status) return std::nullopt;
  perf_map_place place;
  std::optional<std::array<uid_t, 4>> uids = uids_of(*status);
  if (!uids) return std::nullopt;
  place.owners = *uids;
  std::optional<long> own_pid = status_number(*status, "NSpid:");
  if (!own_pid) return std::nullopt;
  place.name = "perf-" + std::to_string(*own_pid) + ".map";
  io::unique_fd root{::open((task + "/root").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
  if (!root) return std::nullopt;  // gone, or not ours to look into
  place.tmp = open_dir_in_root(root.get(), "/tmp");
  if (!place.tmp) return std::nullopt;  // no /tmp: no map; ENOSYS: a kernel before 5.6
  return place;
}

process_perf_map open_perf_map_at(const perf_map_place& place) {
  process_perf_map map;
  map.path = place.path();
  io::unique_fd file = open_on_same_mount(place.tmp.get(), place.name);
  if (!file) {
    if (errno == ELOOP) map.problem = "is a symbolic link";
    if (errno == EXDEV) map.problem = "is a mount of its own, not a file of the process's /tmp";
    return map;  // ENOENT: no map
  }
  struct stat about {};
  base::check_syscall(::fstat(file.get(), &about), "fstat", "the process's " + map.path);
  map.problem = perf_map_problem(about, place.owners, "the process's user");
  if (map.problem.empty()) map.fd = std::move(file);
  return map;
}

process_perf_map open_process_perf_map(pid_t pid, const proc_root& proc) {
  std::optional<perf_map_place> place = find_perf_map_place(pid, proc);
  return place ? open_perf_map_at(*place) : process_perf_map{};
}

std::optional<io::bounded_file> read_perf_map_file(const std::string& dir, pid_t pid) {
  if (dir.empty()) return std::nullopt;
  std::string path = dir + "/perf-" + std::to_string(pid) + ".map";
  int raw = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (raw < 0 && errno == ENOENT) return std::nullopt;
  io::bounded_file file;
  if (raw < 0 && errno == ELOOP) {
    file.problem = "is a symbolic link";
    return file;
  }
  io::unique_fd fd{base::check_syscall(raw, "open", path)};
  base::check_syscall(::fstat(fd.get(), &file.status), "fstat", path);
  const std::array<uid_t, 2> owners{::geteuid(), 0};
  file.problem = perf_map_problem(file.status, owners, "the user running arec or root");
  if (!file.problem.empty()) return file;
  return io::read_bounded_open_file(fd.get(), path, perf_data::max_perf_map_bytes);
}

}  // namespace arec::host
