// process_perf_map: the perf map a JIT runtime writes for the code it generates
// (/tmp/perf-PID.map), opened as the process itself sees it: under its own root and named with
// its own pid in its own pid namespace, so the map of a process in a container (whose /tmp and
// pid are not the host's) is found while the process lives. The fd then keeps the file
// readable after the process, and even its container, is gone.
#pragma once

#include <sys/types.h>

#include <string>

#include "io/mapped_file.hpp"
#include "io/unique_fd.hpp"

namespace arec::io {

struct process_perf_map {
  unique_fd fd;         // empty when there is no map, or it was refused
  std::string path;     // the map's path as the process names it ("/tmp/perf-7.map")
  std::string problem;  // why a map that exists was refused ("is owned by uid 1001, ...")
};

// Opens the perf map of process `pid`: /tmp/perf-<its pid in its namespace>.map resolved
// inside its root (openat2 RESOLVE_IN_ROOT: a link in the container cannot lead out of it),
// not through a symbolic link, and only a regular file that the process's user, root or the
// user running arec owns and no one else may write (a map in a shared /tmp that another user
// planted before the process existed names nothing). A process that is gone, or a kernel
// without openat2, gives an empty fd and no problem.
process_perf_map open_process_perf_map(pid_t pid, const proc_root& proc = {});

}  // namespace arec::io
