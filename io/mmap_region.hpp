// mmap_region: the move-only owner of one memory mapping.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <string_view>
#include <utility>

namespace arec::io {

class mmap_region {
 public:
  mmap_region() = default;
  // Maps `length` bytes of `fd` at `offset`; throws std::system_error naming `what` on failure.
  static mmap_region map(int fd, std::size_t length, int prot, int flags, std::string_view what,
                         off_t offset = 0);
  mmap_region(mmap_region&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), length_(std::exchange(other.length_, 0)) {}
  mmap_region& operator=(mmap_region&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      length_ = std::exchange(other.length_, 0);
    }
    return *this;
  }
  mmap_region(const mmap_region&) = delete;
  mmap_region& operator=(const mmap_region&) = delete;
  ~mmap_region() { reset(); }

  std::byte* data() const { return static_cast<std::byte*>(data_); }
  std::size_t size() const { return length_; }

 private:
  mmap_region(void* data, std::size_t length) : data_(data), length_(length) {}
  void reset() noexcept {
    if (data_) ::munmap(data_, length_);
    data_ = nullptr;
    length_ = 0;
  }

  void* data_ = nullptr;
  std::size_t length_ = 0;
};

}  // namespace arec::io
