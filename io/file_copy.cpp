#include "io/file_copy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>

#include "base/system_error.hpp"
#include "io/dir_reader.hpp"
#include "io/output_path.hpp"
#include "io/unique_fd.hpp"

namespace arec::io {
namespace {

// read/write rather than copy_file_range: procfs files report size 0 and refuse it.
void copy_contents(int from_fd, const std::string& from, int to_fd, const std::string& to) {
  std::array<std::byte, 64 * 1024> buffer;
  for (;;) {
    ssize_t got = base::check_syscall(
        base::retry_on_eintr([&] { return ::read(from_fd, buffer.data(), buffer.size()); }), "read",
        from);
    if (got == 0) return;
    write_all(to_fd, std::span{buffer}.first(static_cast<std::size_t>(got)), to);
  }
}

// Writes [offset, end) of `from_fd` at the same offset of `to_fd`.
void copy_range(int from_fd, const std::string& from, int to_fd, const std::string& to,
                off_t offset, off_t end) {
  std::array<std::byte, 64 * 1024> buffer;
  while (offset < end) {
    std::size_t want = static_cast<std::size_t>(std::min<off_t>(end - offset, buffer.size()));
    ssize_t got = base::check_syscall(
        base::retry_on_eintr([&] { return ::pread(from_fd, buffer.data(), want, offset); }), "read",
        from);
    if (got == 0) return;  // the file shrank under us: what is left is a hole
    for (ssize_t done = 0; done < got;) {
      ssize_t put = base::check_syscall(base::retry_on_eintr([&] {
                                          return ::pwrite(to_fd, buffer.data() + done,
                                                          static_cast<std::size_t>(got - done),
                                                          offset + done);
                                        }),
                                        "write", to);
      done += put;
    }
    offset += got;
  }
}

}  // namespace

std::optional<std::uint64_t> copy_sparse(int from_fd, const std::string& from, int to_fd,
                                         const std::string& to, std::uint64_t limit) {
  struct stat status {};
  base::check_syscall(::fstat(from_fd, &status), "fstat", from);
  std::uint64_t written = 0;
  for (off_t data = 0; data < status.st_size;) {
    data = ::lseek(from_fd, data, SEEK_DATA);
    if (data == -1 && errno == ENXIO) break;  // only a hole is left
    base::check_syscall(data, "lseek", from);
    off_t hole = base::check_syscall(::lseek(from_fd, data, SEEK_HOLE), "lseek", from);
    hole = std::min(hole, status.st_size);
    written += static_cast<std::uint64_t>(hole - data);
    if (written > limit) return std::nullopt;
    copy_range(from_fd, from, to_fd, to, data, hole);
    data = hole;
  }
  base::check_syscall(::ftruncate(to_fd, status.st_size), "ftruncate", to);
  return written;
}

void copy_to_end(int from_fd, const std::string& from, int to_fd, const std::string& to) {
  copy_contents(from_fd, from, to_fd, to);
}

void make_directories(const std::string& path, mode_t mode) {
  for (std::size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    std::string prefix = path.substr(0, end);
    if (::mkdir(prefix.c_str(), mode) == -1 && errno != EEXIST) base::throw_errno("mkdir", prefix);
    if (end == std::string::npos) return;
  }
}

void write_new_file(const std::string& path, std::span<const std::byte> bytes, mode_t mode) {
  unique_fd target = unique_fd::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  write_all(target.get(), bytes, path);
}

std::vector<std::string> directory_names(const std::string& dir) {
  std::vector<std::string> names;
  unique_fd fd = open_directory_if_present(AT_FDCWD, dir.c_str());
  if (!fd) return names;
  dir_reader reader{std::move(fd)};
  while (auto entry = reader.next()) names.emplace_back(entry->name);
  return names;
}

std::optional<std::uint64_t> file_size(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0) return static_cast<std::uint64_t>(status.st_size);
  if (errno == ENOENT) return std::nullopt;
  base::throw_errno("stat", path);
}

bool remove_file(const std::string& path) {
  if (::unlink(path.c_str()) == 0) return true;
  if (errno == ENOENT) return false;
  base::throw_errno("unlink", path);
}

bool remove_empty_directory(const std::string& path) {
  if (::rmdir(path.c_str()) == 0) return true;
  if (errno == ENOENT || errno == ENOTEMPTY || errno == EEXIST) return false;
  base::throw_errno("rmdir", path);
}

}  // namespace arec::io
