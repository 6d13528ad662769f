// tracefs: where the kernel's tracing files live, and tracepoint ids and formats read from it.
// A freshly booted machine often has no tracefs mounted; perf mounts one on /sys/kernel/tracing
// and leaves it there. arec mounts a private, detached instance that only it can reach (through
// its descriptor), so the host's mount table is left as it was (docs/security.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/unique_fd.hpp"

namespace arec::host::tracefs {

// The mounted tracefs root: $TRACEFS_PATH, else /sys/kernel/tracing, else
// /sys/kernel/debug/tracing, each accepted only if statfs says it is tracefs.
// Returns nullopt when none is mounted.
std::optional<std::string> find_mounted_root();

// A tracefs instance attached nowhere in the mount tree (fsopen + fsmount): it lives as long as
// its descriptor, and its root is reached as /proc/self/fd/N. Needs CAP_SYS_ADMIN and Linux 5.2.
class private_mount {
 public:
  // Throws std::system_error naming the call ("fsopen tracefs: Operation not permitted").
  static private_mount create();
  // "/proc/self/fd/N": a path every file call of this process resolves into the instance.
  const std::string& root() const noexcept { return root_; }

 private:
  explicit private_mount(io::unique_fd mount);
  io::unique_fd mount_;
  std::string root_;
};

// The tracefs root arec reads: a mounted one, else a private mount made once per process and
// kept until it exits. Throws std::runtime_error in the user's terms when there is neither:
// "tracefs is not mounted and arec cannot mount it (fsopen tracefs: Operation not permitted);
// mount it with: mount -t tracefs nodev /sys/kernel/tracing".
const std::string& root();

// The id of tracepoint `system:event` from ROOT/events/SYSTEM/EVENT/id.
// Throws std::system_error ("open .../id: No such file or directory") when it does not exist.
std::uint64_t read_tracepoint_id(std::string_view root, std::string_view system,
                                 std::string_view event);

// The names of the directories in ROOT/RELATIVE_PATH ("events": the systems; "events/sched": its
// events), in the order getdents64 gives them, which is the order perf's readdir sees. Empty when
// the directory does not exist; other failures throw std::system_error naming the path.
std::vector<std::string> list_directories(std::string_view root, std::string_view relative_path);

// The whole text of a tracefs pseudo-file (st_size is 0 there, so it reads to EOF).
std::string read_file(std::string_view root, std::string_view relative_path);

}  // namespace arec::host::tracefs
