// trusted_dir: directories that arec, often running as root, writes into for its user (the
// build-id cache), opened so that no other user can redirect those writes: below the root no
// symlink is followed, and a directory another user owns or may write to is refused.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "io/unique_fd.hpp"

namespace arec::io {

// A directory that is not safe to write into: what() says which, why and how to fix it.
class untrusted_directory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Why a directory with `status` must not be written into by the running user: owned by
// another user (not root), or writable by its group or by others. nullopt when it is safe.
std::optional<std::string> distrust_reason(const struct stat& status);

// Opens directory `path`, making it and its missing parents (mode `mode`) first, and checks it
// with distrust_reason. The path itself may go through symlinks: it is the user's choice
// ($PERF_BUILDID_DIR, ~/.debug), and what it resolves to is checked.
unique_fd open_trusted_root(const std::string& path, mode_t mode = 0755);

// Opens directory `relative` ("a/b/c") below the open directory `parent`, making missing
// components with `mode`. No component may be a symlink, "." or "..", nor fail
// distrust_reason. `shown` names `parent` in messages.
unique_fd open_below(int parent, std::string_view relative, const std::string& shown,
                     mode_t mode = 0755);

}  // namespace arec::io
