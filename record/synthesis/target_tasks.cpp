#include "record/synthesis/target_tasks.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>

#include "io/dir_reader.hpp"
#include "io/proc_status.hpp"
#include "io/small_file.hpp"
#include "io/system_error.hpp"
#include "io/usage_error.hpp"

namespace arec::record {

std::vector<pid_t> processes_of(std::span<const int> ids, std::string_view option) {
  std::vector<pid_t> processes;
  std::array<char, 4096> buffer;
  for (int id : ids) {
    // /proc/TID/status exists for every thread, leader or not, though /proc lists only leaders.
    std::string path = "/proc/" + std::to_string(id) + "/status";
    auto text = io::read_small_file(AT_FDCWD, path.c_str(), buffer);
    int tgid = text ? io::parse_task_status(*text).tgid : -1;
    if (tgid <= 0)
      throw io::usage_error(std::string(option) + (option == "-t" ? ": tid " : ": pid ") +
                            std::to_string(id) + " does not exist");
    processes.push_back(tgid);
  }
  std::sort(processes.begin(), processes.end());
  processes.erase(std::unique(processes.begin(), processes.end()), processes.end());
  return processes;
}

std::vector<pid_t> threads_of_processes(std::span<const int> pids) {
  std::vector<pid_t> threads;
  for (int pid : pids) {
    std::string path = "/proc/" + std::to_string(pid) + "/task";
    io::unique_fd directory = io::open_directory_if_present(AT_FDCWD, path.c_str());
    if (!directory) throw io::usage_error("-p: pid " + std::to_string(pid) + " does not exist");
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

}  // namespace arec::record
