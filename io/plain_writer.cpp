#include "io/plain_writer.hpp"

#include <sys/uio.h>

#include <cerrno>
#include <utility>

#include "base/system_error.hpp"

namespace arec::io {

plain_writer::plain_writer(int fd, std::string path, std::uint64_t start_offset,
                           std::size_t queue_depth, bool sequential)
    : fd_(fd),
      path_(std::move(path)),
      offset_(start_offset),
      sequential_(sequential),
      slots_(queue_depth) {}

void plain_writer::submit(std::span<const std::span<const std::byte>> pieces,
                          std::uint64_t cookie) {
  std::uint32_t slot = slots_.acquire(pieces, offset_, cookie);
  write_request& request = slots_[slot];
  offset_ += request.remaining_bytes();
  if (error_ == 0) error_ = write_all(request);
  slots_.finish(slot);
}

std::size_t plain_writer::reap(std::span<std::uint64_t> done) {
  if (error_ != 0) base::throw_system_error(error_, "write", path_);
  return slots_.hand_out(done);
}

int plain_writer::write_all(write_request& request) const noexcept {
  while (request.remaining_bytes() > 0) {
    auto iov = request.remaining();
    ssize_t written = base::retry_on_eintr([&] {
      if (sequential_) return ::writev(fd_, iov.data(), static_cast<int>(iov.size()));
      return ::pwritev(fd_, iov.data(), static_cast<int>(iov.size()),
                       static_cast<off_t>(request.offset));
    });
    if (written < 0) return errno;
    // A regular file never accepts zero bytes of a non-empty write without an error; treat it
    // as one rather than loop forever.
    if (written == 0) return EIO;
    request.advance(static_cast<std::size_t>(written));
  }
  return 0;
}

}  // namespace arec::io
