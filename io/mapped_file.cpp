#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cinttypes>
#include <cstdio>

namespace arec::io {
namespace {

unique_fd open_regular(const std::string& path) {
  unique_fd fd{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  struct stat status {};
  if (fd && (::fstat(fd.get(), &status) == -1 || !S_ISREG(status.st_mode))) fd.reset();
  return fd;
}

bool on_device_of(const struct stat& status, const file_identity& identity) {
  return major(status.st_dev) == identity.major && minor(status.st_dev) == identity.minor;
}

// The one rule for a path that may not hold the mapped file: another inode on the mapping's
// device is provably another file (another device says nothing: overlayfs).
bool provably_another(const struct stat& status, const file_identity& identity) {
  return identity.inode != 0 && on_device_of(status, identity) && status.st_ino != identity.inode;
}

// False when `fd` is provably not the file the kernel identified; when `exact` (map_files,
// which holds the very file), anything but that device and inode is another file.
bool may_be(int fd, const file_identity& identity, bool exact) {
  if (identity.inode == 0) return true;
  struct stat status {};
  if (::fstat(fd, &status) == -1) return false;
  if (exact) return on_device_of(status, identity) && status.st_ino == identity.inode;
  return !provably_another(status, identity);
}

unique_fd candidate(const std::string& path, const file_identity& identity, bool exact) {
  unique_fd fd = open_regular(path);
  if (fd && !may_be(fd.get(), identity, exact)) fd.reset();
  return fd;
}

}  // namespace

bool provably_another_file(const std::string& path, const file_identity& identity) {
  struct stat status {};
  return identity.inode != 0 && ::stat(path.c_str(), &status) == 0 &&
         provably_another(status, identity);
}

unique_fd open_mapped_file(const std::string& path, const std::optional<mapping_place>& place,
                           const file_identity& identity, const proc_root& proc) {
  if (place && place->pid > 0) {
    char range[64];
    std::snprintf(range, sizeof range, "%" PRIx64 "-%" PRIx64, place->start, place->end);
    std::string process = proc.path + "/" + std::to_string(place->pid);
    // map_files holds the file the mapping holds, whatever its path now; the kernel gave that
    // very file's identity (overlayfs maps the real file), so only a reused pid differs.
    if (unique_fd mapped = candidate(process + "/map_files/" + range, identity, true))
      return mapped;
    if (path.starts_with('/'))
      if (unique_fd rooted = candidate(process + "/root" + path, identity, false)) return rooted;
  }
  return candidate(path, identity, false);
}

}  // namespace arec::io
