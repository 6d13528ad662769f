// file_status: what is at a path, asked of the kernel in one place (stat, fstatat), so that
// the layers above never touch the file system themselves (scripts/check-layers).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>

#include <optional>
#include <string>

namespace arec::io {

// The status of `name` relative to `dir_fd` (AT_FDCWD: the working directory); with
// `follow_link` false, of a final symlink itself. nullopt when nothing is there (ENOENT,
// ENOTDIR); other failures throw std::system_error "stat NAME: ...".
std::optional<struct stat> status_at(int dir_fd, const std::string& name, bool follow_link);

// The status of `path`, following links; throws std::system_error "stat PATH: ..." when there
// is none.
struct stat status_of(const std::string& path);

// Whether `a` and `b` name one file (device and inode); false when either is missing.
bool same_file(const std::string& a, const std::string& b);

}  // namespace arec::io
