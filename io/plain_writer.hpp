// plain_writer: the append_writer backend that writes synchronously with pwritev, for systems
// where io_uring is disabled (sysctl, seccomp) or when the user asks for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "io/append_writer.hpp"

namespace arec::io {

// Each submit() writes its request completely before returning (looping over short writes);
// its cookie comes out of the next reap(). A write error is kept and thrown by reap(), so both
// backends report errors at the same place; requests submitted after it are not written.
class plain_writer final : public append_writer {
 public:
  // `sequential`: write at the descriptor's position (writev) rather than at offset() (pwritev),
  // for pipes; offset() then only counts the bytes written.
  plain_writer(int fd, std::string path, std::uint64_t start_offset, std::size_t queue_depth,
               bool sequential = false);

  void submit(std::span<const std::span<const std::byte>> pieces, std::uint64_t cookie) override;
  bool can_submit() const override { return slots_.has_free(); }
  std::size_t in_flight() const override { return slots_.in_use(); }
  std::size_t reap(std::span<std::uint64_t> done) override;
  void wait_one() override {}  // nothing is ever left in progress
  int completion_fd() const override { return -1; }
  std::uint64_t offset() const override { return offset_; }
  writer_backend backend() const override { return writer_backend::plain; }

 private:
  // Writes the whole request; returns 0 or the errno of the failed write.
  int write_all(write_request& request) const noexcept;

  int fd_;
  std::string path_;
  std::uint64_t offset_;
  bool sequential_;
  request_slots slots_;
  int error_ = 0;  // the first write error, thrown by every later reap()
};

}  // namespace arec::io
