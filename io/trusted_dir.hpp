// trusted_dir: directories that arec, often running as root, writes into for its user (the
// build-id cache), opened so that no other user can redirect those writes: below the root no
// symlink is followed, and a directory another user owns or may write to is refused.
#pragma once

#include <sys/types.h>

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

// Opens directory `path`, making it and its missing parents (mode `mode`) first, and checks it
// with io::ownership_problem (owned by the running user or root, writable by nobody else).
// The path itself may go through symlinks: it is the user's choice ($PERF_BUILDID_DIR,
// ~/.debug), and what it resolves to is checked.
unique_fd open_trusted_root(const std::string& path, mode_t mode = 0755);

// Opens directory `relative` ("a/b/c") below the open directory `parent`, making missing
// components with `mode`. No component may be a symlink, "." or "..", nor fail the same
// check. `shown` names `parent` in messages.
unique_fd open_below(int parent, std::string_view relative, const std::string& shown,
                     mode_t mode = 0755);

}  // namespace arec::io
