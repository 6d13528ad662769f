// target_tasks: the threads of the processes given with -p, each of which gets its own events
// (a per-task event follows only the children created after it was opened).
#pragma once

#include <sys/types.h>

#include <span>
#include <string_view>
#include <vector>

namespace arec::record {

// The processes that `ids` (as given with -p) name: a thread id stands for its whole process,
// as in perf (`-t` is for single threads). Sorted, without duplicates. Throws usage_error
// ("-p: pid 123 does not exist", with `option` "-t": "-t: tid 123 ...") for an id that is not
// there.
std::vector<pid_t> processes_of(std::span<const int> ids, std::string_view option = "-p");

// Every thread of every process in `pids`, read from /proc/PID/task. Throws usage_error
// ("pid 123 does not exist") for a process that is not there.
std::vector<pid_t> threads_of_processes(std::span<const int> pids);

}  // namespace arec::record
