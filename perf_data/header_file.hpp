// header_file: positioned reads of a perf.data file's header parts, with the checks every
// header reader needs; a problem is a format_error naming the file and the offset.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "base/system_error.hpp"
#include "io/unique_fd.hpp"
#include "perf_data/format_error.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::perf_data {

// Positioned reads of one header file.
class header_file {
 public:
  explicit header_file(std::string path) : path_(std::move(path)) {
    fd_ = io::unique_fd::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat status {};
    base::check_syscall(::fstat(fd_.get(), &status), "fstat", path_);
    size_ = static_cast<std::uint64_t>(status.st_size);
  }

  std::uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(std::uint64_t offset, const std::string& problem) const {
    throw format_error(path_, offset, problem);
  }
  bool fits(const file_section& section) const {
    return section.offset <= size_ && section.size <= size_ - section.offset;
  }
  // `hint` follows the problem: what to do about it.
  void check(const file_section& section, std::uint64_t descriptor, const std::string& what,
             const std::string& hint = {}) const {
    if (!fits(section))
      fail(descriptor, what + " runs past the end of the file (offset " +
                           std::to_string(section.offset) + " + size " +
                           std::to_string(section.size) + " > " + std::to_string(size_) +
                           " bytes)" + hint);
  }
  void read(void* out, std::uint64_t count, std::uint64_t offset) const {
    auto* bytes = static_cast<char*>(out);
    while (count > 0) {
      ssize_t got = base::retry_on_eintr(
          [&] { return ::pread(fd_.get(), bytes, count, static_cast<off_t>(offset)); });
      if (got < 0) base::throw_errno("pread", path_);
      if (got == 0) fail(offset, "file ended while reading (shrunk while converting?)");
      bytes += got;
      offset += static_cast<std::uint64_t>(got);
      count -= static_cast<std::uint64_t>(got);
    }
  }

 private:
  std::string path_;
  io::unique_fd fd_;
  std::uint64_t size_ = 0;
};

}  // namespace arec::perf_data
