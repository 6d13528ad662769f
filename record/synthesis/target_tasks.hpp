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
// ("pid 123 does not exist") for a process that is not there, unless `skip_gone` (-u: a
// process of the user may end between the scan and this).
std::vector<pid_t> threads_of_processes(std::span<const int> pids, bool skip_gone = false);

// -u: the processes `uid` owns (the owner of /proc/PID, as perf reads it), sorted, without
// `except` (arec itself: recording its own draining would feed on itself). Allocates nothing
// per /proc entry but the result. Throws std::system_error when /proc cannot be read.
std::vector<pid_t> processes_of_user(uid_t uid, pid_t except, const char* proc_root = "/proc");

// Every process under /proc now, sorted. Throws std::system_error when /proc cannot be read.
std::vector<pid_t> all_processes(const char* proc_root = "/proc");

}  // namespace arec::record
