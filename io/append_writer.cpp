#include "io/append_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "io/plain_writer.hpp"
#include "io/uring_writer.hpp"

namespace arec::io {

std::size_t write_request::assign(std::span<const std::span<const std::byte>> pieces,
                                  std::uint64_t at, std::uint64_t id) noexcept {
  std::size_t total = 0;
  count = 0;
  for (auto piece : pieces) {
    if (piece.empty()) continue;
    // iovec wants a mutable pointer; the kernel only reads from it for a write.
    iov[count++] = iovec{const_cast<std::byte*>(piece.data()), piece.size()};
    total += piece.size();
  }
  first = 0;
  offset = at;
  cookie = id;
  return total;
}

bool write_request::advance(std::size_t written) noexcept {
  offset += written;
  while (first < count && written >= iov[first].iov_len) {
    written -= iov[first].iov_len;
    ++first;
  }
  if (first < count) {
    iov[first].iov_base = static_cast<std::byte*>(iov[first].iov_base) + written;
    iov[first].iov_len -= written;
  }
  return first == count;
}

std::size_t write_request::remaining_bytes() const noexcept {
  std::size_t total = 0;
  for (const iovec& v : remaining()) total += v.iov_len;
  return total;
}

request_slots::request_slots(std::size_t depth) : requests_(depth) {
  free_.reserve(depth);
  finished_.reserve(depth);
  // Highest first so that acquire() hands out slot 0 first (only matters for reading traces).
  for (std::size_t slot = depth; slot-- > 0;) free_.push_back(static_cast<std::uint32_t>(slot));
}

std::uint32_t request_slots::acquire(std::span<const std::span<const std::byte>> pieces,
                                     std::uint64_t at, std::uint64_t cookie) {
  if (free_.empty()) throw std::logic_error("append_writer::submit without a free slot");
  if (pieces.size() > append_writer::max_pieces) {
    throw std::logic_error("append_writer::submit with more than max_pieces pieces");
  }
  std::uint32_t slot = free_.back();
  free_.pop_back();
  requests_[slot].assign(pieces, at, cookie);
  return slot;
}

void request_slots::finish(std::uint32_t slot) noexcept {
  finished_.push_back(slot);
}

std::size_t request_slots::hand_out(std::span<std::uint64_t> done) noexcept {
  std::size_t n = std::min(done.size(), finished_.size());
  for (std::size_t i = 0; i < n; ++i) {
    done[i] = requests_[finished_[i]].cookie;
    free_.push_back(finished_[i]);
  }
  // Erasing from the front keeps completion order; the table is at most queue_depth long.
  finished_.erase(finished_.begin(), finished_.begin() + static_cast<std::ptrdiff_t>(n));
  return n;
}

namespace {

bool plain_forced_by_environment() {
  const char* value = std::getenv("AREC_FORCE_PLAIN_IO");
  return value != nullptr && std::string_view(value) == "1";
}

// Errors that mean "io_uring is not available here" rather than "something is broken".
bool means_io_uring_unavailable(const std::system_error& error) {
  if (error.code().category() != std::system_category()) return false;
  switch (error.code().value()) {
    case EPERM:
    case EACCES:
    case ENOSYS:
    case EINVAL:
    case ENOMEM:  // RLIMIT_MEMLOCK on kernels before 5.12
      return true;
    default:
      return false;
  }
}

std::string_view likely_cause(int err) {
  switch (err) {
    case EPERM:
    case EACCES:
      return " (kernel.io_uring_disabled or seccomp)";
    case ENOSYS:
      return " (kernel without io_uring, or seccomp)";
    case EINVAL:
      return " (kernel too old for this io_uring setup)";
    case ENOMEM:
      return " (RLIMIT_MEMLOCK too low for the ring)";
    default:
      return "";
  }
}

}  // namespace

std::pair<std::unique_ptr<append_writer>, writer_choice> make_append_writer(
    int fd, std::string path_for_messages, std::uint64_t start_offset,
    append_writer_config config) {
  if (config.queue_depth == 0) throw std::invalid_argument("append_writer: queue_depth is 0");
  std::string reason;
  if (config.sequential) {
    auto writer = std::make_unique<plain_writer>(fd, std::move(path_for_messages), start_offset,
                                                 config.queue_depth, true);
    return {std::move(writer), writer_choice{writer_backend::plain, {}}};
  }
  if (config.force_plain) {
    reason = "plain writes requested";
  } else if (plain_forced_by_environment()) {
    reason = "plain writes forced by AREC_FORCE_PLAIN_IO=1";
  } else {
    try {
      auto writer =
          std::make_unique<uring_writer>(fd, path_for_messages, start_offset, config.queue_depth);
      return {std::move(writer), writer_choice{writer_backend::io_uring, {}}};
    } catch (const std::system_error& error) {
      if (!means_io_uring_unavailable(error)) throw;
      reason = error.what();
      reason += likely_cause(error.code().value());
    }
  }
  auto writer = std::make_unique<plain_writer>(fd, std::move(path_for_messages), start_offset,
                                               config.queue_depth);
  return {std::move(writer), writer_choice{writer_backend::plain, std::move(reason)}};
}

}  // namespace arec::io
