// process_perf_map: the perf map a JIT runtime writes for the code it generates
// (/tmp/perf-PID.map), opened as the process itself sees it: under its own root and named with
// its own pid in its own pid namespace, so the map of a process in a container (whose /tmp and
// pid are not the host's) is found while the process lives. The fd then keeps the file
// readable after the process, and even its container, is gone. Every reader of a perf map
// (the capture, export's and push's /tmp) accepts a file by one rule, perf_map_problem:
// docs/security.md, "JIT perf maps".
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "host/mapped_file.hpp"
#include "io/owned_files.hpp"
#include "io/unique_fd.hpp"

namespace arec::host {

// Why the perf map `status` describes (of an open file) names nothing: not a regular file,
// not readable by its owner, writable by group or others, or owned by none of `owners` (told
// as `whose`: "the process's user", ...). Empty when it may name frames.
std::string perf_map_problem(const struct stat& status, std::span<const uid_t> owners,
                             std::string_view whose);

struct process_perf_map {
  io::unique_fd fd;     // empty when there is no map, or it was refused
  std::string path;     // the map's path as the process names it ("/tmp/perf-7.map")
  std::string problem;  // why a map that exists was refused ("is owned by uid 1001, ...")
};

// Where process `pid`'s perf map is or will be: its /tmp, opened as it sees it and kept open,
// so that a map written late (a JVM's -XX:+DumpPerfMapAtExit, jcmd Compiler.perfmap) is found
// there at the process's exit or after it, even once its container is gone; the map's name
// there, and the uids that may own it.
struct perf_map_place {
  io::unique_fd tmp;              // O_PATH
  std::string name;               // "perf-7.map"
  std::array<uid_t, 4> owners{};  // real, effective, saved, filesystem
  std::string path() const { return "/tmp/" + name; }
};

// The uids of process `pid` (real, effective, saved, filesystem): the owners a file it wrote
// for arec to read may have. nullopt when it is gone.
std::optional<std::array<uid_t, 4>> process_uids(pid_t pid, const proc_root& proc = {});

// The place of process `pid`'s perf map; nullopt when the process is gone, has no /tmp, or the
// kernel has no openat2.
std::optional<perf_map_place> find_perf_map_place(pid_t pid, const proc_root& proc = {});

// Opens the perf map at `place`, by open_process_perf_map's rules; an empty fd and no problem
// when there is none (yet).
process_perf_map open_perf_map_at(const perf_map_place& place);

// Opens the perf map of process `pid`: /tmp/perf-<its pid in its namespace>.map, its /tmp
// resolved inside its root (openat2 RESOLVE_IN_ROOT: a link in the container cannot lead out
// of it), the map itself on the same mount as its /tmp (a file mounted over the map's path is
// refused: a user in a namespace of its own can mount any file it can name there) and not a
// symbolic link, accepted by perf_map_problem with the process's own uids (real, effective,
// saved, filesystem) as owners: a root-owned map names only a process that runs as root, and
// the recording never holds text the process's user could not read. A process that is gone,
// or a kernel without openat2, gives an empty fd and no problem.
process_perf_map open_process_perf_map(pid_t pid, const proc_root& proc = {});

// Reads `dir`/perf-`pid`.map as perf report does for a process it knows only by its pid: a
// regular file, not through a symbolic link, of at most perf_data::max_perf_map_bytes (as a
// captured map), accepted by
// perf_map_problem with the user running arec and root as owners. nullopt when there is none
// (or `dir` is ""); a refused one has its `problem` ("is owned by uid 1001, ...") and no text.
std::optional<io::bounded_file> read_perf_map_file(const std::string& dir, pid_t pid);

}  // namespace arec::host
