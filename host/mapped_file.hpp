// mapped_file: opening a file that a process maps as that process sees it, not by its path on
// the host: a process in a container (own mount namespace), a file at a path only the container
// has, and a file deleted or replaced since it was mapped are all the mapped file through
// /proc/PID/map_files/START-END while the mapping lives. A candidate that is provably another
// file (same device and another inode, or another device) is never used: no build-id beats a
// wrong one.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "io/unique_fd.hpp"

namespace arec::host {

// One mapping of the file: the process and the address range it maps it at.
struct mapping_place {
  pid_t pid = 0;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};

// The identity the kernel gave the mapped file (MMAP2): its device and inode, 0 when unknown.
struct file_identity {
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  std::uint64_t inode = 0;
  std::uint64_t generation = 0;  // the inode's generation (i_generation), 0 when unknown
};

// Where /proc is; tests point it elsewhere.
struct proc_root {
  std::string path = "/proc";
};

// Opens (O_RDONLY | O_NONBLOCK) the regular file mapped as `path` at `place`: first
// /proc/PID/map_files/START-END (the mapped file itself, while mapped), then
// /proc/PID/root/PATH (the path in the process's mount namespace, while it lives), then PATH.
// With a known identity, a map_files file must be exactly it (else the pid was reused); a path
// candidate on the mapping's device with another inode, or another generation where the file
// system tells it (an inode number reused since), is another file and skipped, and so is
// one on another device, except on the file systems whose stat() device is not the one MMAP2
// names (overlayfs names the underlying file's; btrfs subvolumes, FUSE passthrough): there it
// is accepted. An empty fd when no candidate opens.
io::unique_fd open_mapped_file(const std::string& path, const std::optional<mapping_place>& place,
                               const file_identity& identity, const proc_root& proc = {});

// True when the file at `path` is provably not the one `identity` names (open_mapped_file's
// rule). False when the identity is unknown or the path is missing.
bool provably_another_file(const std::string& path, const file_identity& identity);

}  // namespace arec::host
