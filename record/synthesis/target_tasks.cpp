#include "record/synthesis/target_tasks.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <string>
#include <system_error>

#include "base/system_error.hpp"
#include "base/usage_error.hpp"
#include "host/proc_status.hpp"
#include "io/dir_reader.hpp"
#include "io/file_status.hpp"
#include "io/small_file.hpp"

namespace arec::record {

std::vector<pid_t> processes_of(std::span<const int> ids, std::string_view option) {
  std::vector<pid_t> processes;
  std::array<char, 4096> buffer;
  for (int id : ids) {
    // /proc/TID/status exists for every thread, leader or not, though /proc lists only leaders.
    std::string path = "/proc/" + std::to_string(id) + "/status";
    auto text = io::read_small_file(AT_FDCWD, path.c_str(), buffer);
    int tgid = text ? host::parse_task_status(*text).tgid : -1;
    if (tgid <= 0)
      throw base::usage_error(std::string(option) + (option == "-t" ? ": tid " : ": pid ") +
                              std::to_string(id) + " does not exist");
    processes.push_back(tgid);
  }
  std::sort(processes.begin(), processes.end());
  processes.erase(std::unique(processes.begin(), processes.end()), processes.end());
  return processes;
}

std::vector<pid_t> threads_of_processes(std::span<const int> pids, bool skip_gone) {
  std::vector<pid_t> threads;
  for (int pid : pids) {
    std::string path = "/proc/" + std::to_string(pid) + "/task";
    io::unique_fd directory = io::open_directory_if_present(AT_FDCWD, path.c_str());
    if (!directory && skip_gone) continue;
    if (!directory) throw base::usage_error("-p: pid " + std::to_string(pid) + " does not exist");
    io::dir_reader tasks{std::move(directory)};
    while (auto entry = tasks.next()) {
      pid_t tid = 0;
      auto name = entry->name;
      if (std::from_chars(name.data(), name.data() + name.size(), tid).ec == std::errc{})
        threads.push_back(tid);
    }
  }
  return threads;
}

namespace {

// The processes under `proc_root` that `keep(dir_fd, name)` accepts, sorted. Allocates nothing
// per /proc entry but the result.
template <typename Keep>
std::vector<pid_t> list_processes(const char* proc_root, pid_t except, Keep keep) {
  io::unique_fd proc = io::open_directory_if_present(AT_FDCWD, proc_root);
  if (!proc) base::throw_system_error(ENOENT, "open", proc_root);
  io::dir_reader entries{std::move(proc)};
  std::vector<pid_t> processes;
  while (auto entry = entries.next()) {
    pid_t pid = 0;
    auto name = entry->name;
    if (std::from_chars(name.data(), name.data() + name.size(), pid).ec != std::errc{} ||
        pid == except)
      continue;
    if (keep(entries.fd(), name.data())) processes.push_back(pid);
  }
  std::sort(processes.begin(), processes.end());
  return processes;
}

}  // namespace

std::vector<pid_t> processes_of_user(uid_t uid, pid_t except, const char* proc_root) {
  return list_processes(proc_root, except, [uid](int dir_fd, const char* name) {
    // A process that ended since the listing is simply not there any more.
    try {
      std::optional<struct stat> status = io::status_at(dir_fd, name, true);
      return status && status->st_uid == uid;
    } catch (const std::system_error&) {
      return false;  // not this user's to record when arec cannot even see its owner
    }
  });
}

std::vector<pid_t> all_processes(const char* proc_root) {
  return list_processes(proc_root, 0, [](int, const char*) { return true; });
}

}  // namespace arec::record
