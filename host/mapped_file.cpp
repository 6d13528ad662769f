#include "host/mapped_file.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include <cinttypes>
#include <cstdio>

namespace arec::host {
namespace {

io::unique_fd open_regular(const std::string& path) {
  io::unique_fd fd{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  struct stat status {};
  if (fd && (::fstat(fd.get(), &status) == -1 || !S_ISREG(status.st_mode))) fd.reset();
  return fd;
}

bool on_device_of(const struct stat& status, const file_identity& identity) {
  return major(status.st_dev) == identity.major && minor(status.st_dev) == identity.minor;
}

// File systems whose stat() device is not the one the kernel names in MMAP2 for the same file:
// overlayfs (and aufs) map the underlying file, btrfs and bcachefs give each subvolume a device
// of its own, FUSE passthrough maps its backing file. On these another device says nothing.
bool stat_device_may_differ(long type) {
  constexpr long aufs_magic = 0x61756673, bcachefs_magic = 0xca451a4e, fuse_magic = 0x65735546;
  return type == OVERLAYFS_SUPER_MAGIC || type == BTRFS_SUPER_MAGIC || type == aufs_magic ||
         type == bcachefs_magic || type == fuse_magic;
}

// An inode number is reused as soon as its file is gone (ext4 hands it to the next file
// created), and the kernel's MMAP2 carries the inode's generation, which a reused number does
// not keep. Where the file system tells it (FS_IOC_GETVERSION: ext4, xfs, btrfs), another
// generation is another file.
bool another_generation(int fd, const file_identity& identity) {
  if (identity.generation == 0) return false;
  unsigned int generation = 0;  // the ioctl writes an int, whatever its name says
  return ::ioctl(fd, FS_IOC_GETVERSION, &generation) == 0 && generation != identity.generation;
}

// The one rule for a file that may not be the mapped one: another inode (or generation) on the
// mapping's device is provably another file, and so is a file on another device unless its
// file system is one of those above.
bool provably_another(int fd, const file_identity& identity) {
  if (identity.inode == 0) return false;
  struct stat status {};
  struct statfs file_system {};
  if (::fstat(fd, &status) == -1 || ::fstatfs(fd, &file_system) == -1) return true;
  if (on_device_of(status, identity))
    return status.st_ino != identity.inode || another_generation(fd, identity);
  return !stat_device_may_differ(file_system.f_type);
}

// False when `fd` is provably not the file the kernel identified; when `exact` (map_files,
// which holds the very file), anything but that device and inode is another file.
bool may_be(int fd, const file_identity& identity, bool exact) {
  if (identity.inode == 0) return true;
  if (!exact) return !provably_another(fd, identity);
  struct stat status {};
  return ::fstat(fd, &status) == 0 && on_device_of(status, identity) &&
         status.st_ino == identity.inode && !another_generation(fd, identity);
}

io::unique_fd candidate(const std::string& path, const file_identity& identity, bool exact) {
  io::unique_fd fd = open_regular(path);
  if (fd && !may_be(fd.get(), identity, exact)) fd.reset();
  return fd;
}

}  // namespace

bool provably_another_file(const std::string& path, const file_identity& identity) {
  if (identity.inode == 0) return false;
  io::unique_fd fd{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
  return fd && provably_another(fd.get(), identity);
}

io::unique_fd open_mapped_file(const std::string& path, const std::optional<mapping_place>& place,
                               const file_identity& identity, const proc_root& proc) {
  if (place && place->pid > 0) {
    char range[64];
    std::snprintf(range, sizeof range, "%" PRIx64 "-%" PRIx64, place->start, place->end);
    std::string process = proc.path + "/" + std::to_string(place->pid);
    // map_files holds the file the mapping holds, whatever its path now; the kernel gave that
    // very file's identity (overlayfs maps the real file), so only a reused pid differs.
    if (io::unique_fd mapped = candidate(process + "/map_files/" + range, identity, true))
      return mapped;
    if (path.starts_with('/'))
      if (io::unique_fd rooted = candidate(process + "/root" + path, identity, false))
        return rooted;
  }
  return candidate(path, identity, false);
}

}  // namespace arec::host
