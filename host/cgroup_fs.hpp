// cgroup_fs: the cgroup file system as perf uses it for -G and --all-cgroups: where it is
// mounted, a cgroup's directory fd (what perf_event_open's PERF_FLAG_PID_CGROUP takes) and its
// id (the directory's file handle, which is what the kernel's samples and CGROUP records carry).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "io/unique_fd.hpp"

namespace arec::host {

// perf's choice of mount from the text of /proc/mounts: the first cgroup (v1) mount whose
// options name the perf_event controller, else the last cgroup2 mount; nullopt when neither is
// there.
std::optional<std::string> perf_event_cgroup_mount(std::string_view proc_mounts);

// The same, read from /proc/mounts. Throws std::system_error when /proc/mounts cannot be read.
std::optional<std::string> perf_event_cgroup_mount();

// The cgroup `name` (a path below `mount`, as -G takes it) opened for perf_event_open. Throws
// std::system_error naming "MOUNT/NAME", the path perf prints, when it cannot be opened.
io::unique_fd open_cgroup(const std::string& mount, std::string_view name);

// The id of the cgroup directory `path`: its file handle as name_to_handle_at gives it (for
// cgroupfs, 8 bytes that are the kernel's cgroup id). Throws std::system_error naming `path`.
std::uint64_t cgroup_id(const char* path);

// Calls `visit(id, path)` for `mount`'s cgroup and every cgroup below it, parent before
// children, siblings in directory order (as perf walks them); `path` is relative to the mount
// and starts with '/' ("/" for the root). A cgroup removed meanwhile is left out; paths of
// PATH_MAX bytes or more are skipped, as perf skips them. Throws std::system_error when the
// mount itself cannot be read.
void walk_cgroups(const std::string& mount,
                  const std::function<void(std::uint64_t id, std::string_view path)>& visit);

}  // namespace arec::host
