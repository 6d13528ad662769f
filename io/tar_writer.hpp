// tar_writer: a bzip2-compressed tar file, the format `perf archive` writes (`tar cjf`), built
// entry by entry with libarchive (POSIX pax format: long paths need no GNU extensions, and GNU
// tar, bsdtar and busybox tar read it). Symbolic links are stored as links; hard links as files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

struct archive;

namespace arec::io {

class tar_writer {
 public:
  // Writes the archive to `fd` (which stays open and owned by the caller); `name` is the file
  // named in error messages.
  tar_writer(int fd, std::string name);
  tar_writer(const tar_writer&) = delete;
  tar_writer& operator=(const tar_writer&) = delete;
  ~tar_writer();

  // Adds what is at `root` + "/" + `relative`, stored under the name `relative`: a symbolic
  // link as itself, a regular file with its content, a directory with everything below it.
  // Returns the bytes of file content added. Throws std::system_error naming the call and the
  // path that failed (a file that cannot be read, a write that fails).
  std::uint64_t add(const std::string& root, const std::string& relative);

  // Writes the end of the archive and flushes the compressor. Throws std::system_error.
  void finish();

 private:
  std::uint64_t add_entry(const std::string& path, const std::string& name);
  std::uint64_t add_directory(const std::string& path, const std::string& name);
  std::uint64_t copy_content(const std::string& path, std::uint64_t size);
  [[noreturn]] void fail(std::string_view call, const std::string& object);

  struct archive_deleter {
    void operator()(::archive* handle) const noexcept;
  };
  std::string name_;
  std::unique_ptr<::archive, archive_deleter> archive_;
};

}  // namespace arec::io
