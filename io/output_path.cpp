#include "io/output_path.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>

#include "base/system_error.hpp"
#include "io/dir_reader.hpp"

namespace arec::io {
namespace {

// An old output directory holds arec's layout only (data, data.N): files, no subdirectories.
void remove_directory_files(const std::string& path) {
  dir_reader entries{unique_fd::open(path.c_str(), O_RDONLY | O_DIRECTORY)};
  while (auto entry = entries.next())
    base::check_syscall(::unlinkat(entries.fd(), entry->name.data(), 0), "unlink",
                        path + "/" + std::string(entry->name));
}

}  // namespace

void remove_output(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    base::throw_errno("stat", path);
  }
  if (S_ISDIR(st.st_mode)) {
    remove_directory_files(path);
    base::check_syscall(::rmdir(path.c_str()), "rmdir", path);
  } else {
    base::check_syscall(::unlink(path.c_str()), "unlink", path);
  }
}

void keep_previous_output(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    base::throw_errno("stat", path);
  }
  // A device or FIFO (-o /dev/null) is written into, not kept: perf renames only what holds
  // data, and renaming /dev/null would take it from everyone else on the machine.
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) return;
  std::string old = path + ".old";
  remove_output(old);
  rename_output(path, old);
}

std::string create_private_directory(const std::string& prefix) {
  std::string path = prefix + ".XXXXXX";
  if (::mkdtemp(path.data()) == nullptr) base::throw_errno("mkdtemp", path);
  return path;
}

unique_fd create_output_file(const std::string& path) {
  return unique_fd::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
}

void rename_output(const std::string& from, const std::string& to) {
  base::check_syscall(::rename(from.c_str(), to.c_str()), "rename", from + " to " + to);
}

void create_output_directory(const std::string& path) {
  base::check_syscall(::mkdir(path.c_str(), 0700), "mkdir", path);
}

namespace {

// Writes `size` bytes with `write_some(next, left, done)`, retrying short writes.
template <typename WriteSome>
void write_fully(const void* bytes, std::size_t size, const std::string& path,
                 WriteSome write_some) {
  const char* next = static_cast<const char*>(bytes);
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = base::retry_on_eintr([&] { return write_some(next + done, size - done, done); });
    if (n < 0) base::throw_errno("write", path);
    if (n == 0) base::throw_system_error(EIO, "write", path);
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void write_all_at(int fd, const void* bytes, std::size_t size, std::uint64_t offset,
                  const std::string& path) {
  write_fully(bytes, size, path, [&](const char* from, std::size_t left, std::size_t done) {
    return ::pwrite(fd, from, left, static_cast<off_t>(offset + done));
  });
}

void write_all(int fd, std::span<const std::byte> bytes, const std::string& path) {
  write_fully(
      bytes.data(), bytes.size(), path,
      [&](const char* from, std::size_t left, std::size_t) { return ::write(fd, from, left); });
}

bool is_pipe(int fd) {
  struct stat info {};
  return ::fstat(fd, &info) == 0 && S_ISFIFO(info.st_mode);
}

}  // namespace arec::io
