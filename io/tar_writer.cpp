#include "io/tar_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <vector>

#include "base/system_error.hpp"
#include "io/archive_library.hpp"
#include "io/dir_reader.hpp"
#include "io/unique_fd.hpp"

namespace arec::io {
namespace {

struct entry_deleter {
  void operator()(::archive_entry* entry) const noexcept { libarchive().entry_free(entry); }
};
using entry_ptr = std::unique_ptr<::archive_entry, entry_deleter>;

entry_ptr entry_for(const std::string& name, const struct stat& status) {
  entry_ptr entry{libarchive().entry_new()};
  if (!entry) base::throw_system_error(ENOMEM, "archive_entry_new", name);
  libarchive().entry_set_pathname(entry.get(), name.c_str());
  libarchive().entry_copy_stat(entry.get(), &status);
  libarchive().entry_set_nlink(entry.get(), 1);  // a hard link is stored as a file of its own
  return entry;
}

std::string link_target(const std::string& path) {
  std::array<char, 4096> target{};
  ssize_t length = ::readlink(path.c_str(), target.data(), target.size() - 1);
  if (length < 0) base::throw_errno("readlink", path);
  return std::string(target.data(), static_cast<std::size_t>(length));
}

}  // namespace

void tar_writer::archive_deleter::operator()(::archive* handle) const noexcept {
  libarchive().write_free(handle);  // closes without finishing when finish() was not reached
}

tar_writer::tar_writer(int fd, std::string name)
    : name_(std::move(name)), archive_(libarchive().write_new()) {
  if (!archive_) base::throw_system_error(ENOMEM, "archive_write_new", name_);
  if (libarchive().write_set_format_pax_restricted(archive_.get()) != ARCHIVE_OK)
    fail("archive_write_set_format_pax_restricted", name_);
  if (libarchive().write_add_filter_bzip2(archive_.get()) != ARCHIVE_OK)
    fail("archive_write_add_filter_bzip2", name_);
  if (libarchive().write_open_fd(archive_.get(), fd) != ARCHIVE_OK)
    fail("archive_write_open_fd", name_);
}

tar_writer::~tar_writer() = default;

std::uint64_t tar_writer::add(const std::string& root, const std::string& relative) {
  return add_entry(root + "/" + relative, relative);
}

void tar_writer::finish() {
  if (libarchive().write_close(archive_.get()) != ARCHIVE_OK) fail("write", name_);
}

std::uint64_t tar_writer::add_entry(const std::string& path, const std::string& name) {
  struct stat status {};
  base::check_syscall(::lstat(path.c_str(), &status), "lstat", path);
  entry_ptr entry = entry_for(name, status);
  bool regular = S_ISREG(status.st_mode);
  if (S_ISLNK(status.st_mode))
    libarchive().entry_copy_symlink(entry.get(), link_target(path).c_str());
  if (!regular) libarchive().entry_set_size(entry.get(), 0);
  if (libarchive().write_header(archive_.get(), entry.get()) != ARCHIVE_OK) fail("write", name_);
  if (S_ISDIR(status.st_mode)) return add_directory(path, name);
  return regular ? copy_content(path, static_cast<std::uint64_t>(status.st_size)) : 0;
}

std::uint64_t tar_writer::add_directory(const std::string& path, const std::string& name) {
  // Names first, then entries: a dir_reader's entry lives only until its next call.
  std::vector<std::string> children;
  dir_reader reader{open_directory_if_present(AT_FDCWD, path.c_str())};
  while (auto child = reader.next()) children.emplace_back(child->name);
  std::sort(children.begin(), children.end());  // the same tree, the same archive
  std::uint64_t bytes = 0;
  for (const std::string& child : children)
    bytes += add_entry(path + "/" + child, name + "/" + child);
  return bytes;
}

// Exactly `size` bytes (the size the header announced): a file that shrank meanwhile is an
// error rather than an archive whose later entries are misaligned.
std::uint64_t tar_writer::copy_content(const std::string& path, std::uint64_t size) {
  unique_fd file{base::check_syscall(::open(path.c_str(), O_RDONLY | O_CLOEXEC), "open", path)};
  std::vector<char> buffer(std::size_t{1} << 20);
  std::uint64_t done = 0;
  while (done < size) {
    std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - done));
    ssize_t got = base::retry_on_eintr([&] { return ::read(file.get(), buffer.data(), want); });
    if (got < 0) base::throw_errno("read", path);
    if (got == 0)
      base::throw_system_error(EIO, "read", path + " (shorter than when it was listed)");
    if (libarchive().write_data(archive_.get(), buffer.data(), static_cast<std::size_t>(got)) < 0)
      fail("write", name_);
    done += static_cast<std::uint64_t>(got);
  }
  return done;
}

void tar_writer::fail(std::string_view call, const std::string& object) {
  int err = libarchive().errno_of(archive_.get());
  const char* text = libarchive().error_string(archive_.get());
  if (err > 0) base::throw_system_error(err, call, object);
  base::throw_system_error(EIO, call, object + (text ? std::string(": ") + text : std::string{}));
}

}  // namespace arec::io
