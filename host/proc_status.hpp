// proc_status: what synthesis needs from /proc/<pid>/task/<tid>/status (name, thread group,
// parent, and whether the task has user memory), parsed in place.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace arec::host {

struct task_status {
  // Name: with the kernel's escapes ("\n", "\\") undone, cut to 15 bytes, NUL-terminated.
  std::array<char, 16> comm{};
  std::size_t comm_size = 0;
  int tgid = -1;  // -1 when the line is missing
  int ppid = -1;
  bool has_vm_peak = false;  // only tasks with an mm (user memory) show VmPeak:
  bool has_threads = false;

  std::string_view name() const noexcept { return {comm.data(), comm_size}; }
  // perf's rule: a Threads: line but no VmPeak: line means a kernel thread (no maps).
  bool kernel_thread() const noexcept { return has_threads && !has_vm_peak; }
};

// Parses the text of a status file. Missing fields keep their defaults.
task_status parse_task_status(std::string_view text);

}  // namespace arec::host
