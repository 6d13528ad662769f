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

// False when `fd` is provably not the file the kernel identified: another inode on the same
// device or, when `exact`, on any device.
bool may_be(int fd, const file_identity& identity, bool exact) {
  if (identity.inode == 0) return true;
  struct stat status {};
  if (::fstat(fd, &status) == -1) return false;
  bool same_device =
      major(status.st_dev) == identity.major && minor(status.st_dev) == identity.minor;
  if (exact) return same_device && status.st_ino == identity.inode;
  return !same_device || status.st_ino == identity.inode;
}

unique_fd candidate(const std::string& path, const file_identity& identity, bool exact) {
  unique_fd fd = open_regular(path);
  if (fd && !may_be(fd.get(), identity, exact)) fd.reset();
  return fd;
}

}  // namespace

bool provably_another_file(const std::string& path, const file_identity& identity) {
  if (identity.inode == 0) return false;
  struct stat status {};
  if (::stat(path.c_str(), &status) == -1) return false;
  return major(status.st_dev) == identity.major && minor(status.st_dev) == identity.minor &&
         status.st_ino != identity.inode;
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
