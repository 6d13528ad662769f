// published_file: the one way arec gives a finished file its name. The file is written where no
// reader looks (an unnamed O_TMPFILE, or a unique hidden temporary next to the destination) and
// appears at the destination only on commit(), whole; a crash or an exception before that
// leaves nothing at the destination and no temporary behind (the destructor removes it).
// A character device or FIFO already at the destination (-o /dev/null) is written into, as
// perf does, never replaced; a block device or socket there is refused.
#pragma once

#include <fcntl.h>
#include <sys/types.h>

#include <string>
#include <string_view>

#include "io/unique_fd.hpp"

namespace arec::io {

enum class publish_policy {
  // Fails with EEXIST when anything (a symlink included) is at the destination by commit():
  // a recording's output, the build-id cache.
  new_only,
  // Renamed over whatever is at the destination: an export, a converted file, an archive.
  replace,
  // As replace, with the file flushed before the rename and the directory after it, so the
  // name survives a power cut once commit() returns: the push spool.
  replace_durably,
};

// Whether `name` is a temporary a published_file (or an older arec) made: ".NAME....tmp".
// Only a crash leaves one; a directory arec alone writes (the spool) removes them.
bool is_publish_temporary(std::string_view name);

class published_file {
 public:
  // None yet: one to be assigned.
  published_file() = default;
  // A file for `path` (relative to the working directory), mode `mode` (less the umask).
  // Throws std::system_error "create PATH: ..." when it cannot be made.
  published_file(const std::string& path, publish_policy policy, mode_t mode = 0600);
  // A file for `name` inside the directory `dir_fd` (borrowed: it must outlive this object),
  // so a directory swapped under its path is never written; `shown` names it in messages.
  published_file(int dir_fd, std::string name, std::string shown, publish_policy policy,
                 mode_t mode = 0600);
  published_file(published_file&& other) noexcept;
  published_file& operator=(published_file&& other) noexcept;
  published_file(const published_file&) = delete;
  published_file& operator=(const published_file&) = delete;
  // Removes the temporary unless commit() gave it its name (an O_TMPFILE just vanishes).
  ~published_file();

  // Readable and writable; stays open and writes into the destination after commit().
  int fd() const noexcept { return fd_.get(); }
  // The destination as messages show it.
  const std::string& shown() const noexcept { return shown_; }
  bool committed() const noexcept { return committed_; }

  // Gives the file its name under the policy. Throws std::system_error naming the call and the
  // destination ("create PATH: File exists" under new_only); the file stays unnamed then.
  void commit();

  // Gives `file`, a complete file open elsewhere (a mapped library), the destination's name
  // too, new only, by hard link through the open file (whatever its path holds now). false
  // when the file system will not link it (another file system, fs.protected_hardlinks), so
  // the caller copies instead; EEXIST and other failures throw as commit() does.
  static bool link_existing(int file, int dir_fd, const std::string& name,
                            const std::string& shown);

  // Makes `name` in `dir_fd` a symbolic link to `target`, new only: a link or file already
  // there is kept (false). Other failures throw std::system_error "symlink SHOWN: ...".
  static bool link_symbolically(const std::string& target, int dir_fd, const std::string& name,
                                const std::string& shown);

 private:
  void remove_temporary() noexcept;
  void mark_named() noexcept;
  void commit_new();
  void commit_replacing();

  int dir_fd_ = AT_FDCWD;
  std::string name_;
  std::string shown_;
  std::string temporary_;  // relative to dir_fd_; empty for an O_TMPFILE
  publish_policy policy_ = publish_policy::replace;
  unique_fd fd_;
  bool committed_ = false;
};

}  // namespace arec::io
