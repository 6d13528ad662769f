// append_writer: appends chunks to a data file at consecutive offsets with a bounded number of
// writes in flight, behind one interface for the io_uring and the plain pwritev backends.
// Also the request bookkeeping both backends share (fixed slots: nothing allocated per write).
#pragma once

#include <sys/uio.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace arec::io {

enum class writer_backend { io_uring, plain };

// Which backend make_append_writer chose and, when it is not io_uring, why (one line the caller
// prints once), e.g. "io_uring_queue_init: Operation not permitted (kernel.io_uring_disabled or
// seccomp)". Empty when io_uring was chosen.
struct writer_choice {
  writer_backend backend;
  std::string fallback_reason;
};

// Appends chunks to a file at consecutive offsets reserved at submission time, with a bounded
// number of requests in flight. Buffers passed to submit() must stay valid and unchanged until
// their cookie is returned by reap(). The object owns neither the fd nor the buffers.
// After submit(), reap() or wait_one() has thrown, the writer is failed: destroy it (the
// destructor waits for writes the kernel still holds, so buffers may be freed right after).
class append_writer {
 public:
  virtual ~append_writer() = default;
  static constexpr std::size_t max_pieces = 4;

  // Reserves [offset(), offset() + total size) and starts writing the pieces there, in order.
  // Empty pieces are allowed (a request of zero bytes completes like any other).
  // Precondition: can_submit() and pieces.size() <= max_pieces (else std::logic_error).
  virtual void submit(std::span<const std::span<const std::byte>> pieces, std::uint64_t cookie) = 0;
  // True when a request slot is free (in_flight() < queue depth).
  virtual bool can_submit() const = 0;
  // Requests submitted whose cookies reap() has not returned yet.
  virtual std::size_t in_flight() const = 0;
  // Without blocking, appends the cookies of finished requests to `done` (at most done.size();
  // the rest stay for the next call) and returns how many. A request finishes only when all its
  // bytes are in the file: short writes are resubmitted for the remainder. A write error throws
  // std::system_error "write PATH: <strerror>" (ENOSPC, EIO, EDQUOT, EFBIG...).
  virtual std::size_t reap(std::span<std::uint64_t> done) = 0;
  // Blocks until at least one request has finished (returns at once if none is in flight);
  // the next reap() returns it. Used at stop and when no slot is free.
  virtual void wait_one() = 0;
  // An eventfd that becomes readable when completions are ready, or -1 for the plain backend,
  // whose submit() completes synchronously (its cookies come out of the next reap()).
  // reap() clears it, so after reap() the caller waits for readability again.
  virtual int completion_fd() const = 0;
  // Whether completions are signalled on completion_fd() (on from the start). Off, they still
  // come out of reap() but wake nobody: a caller that reaps on its own schedule (at its next
  // wake-up for something else) saves a wake-up per write. After turning it back on, reap()
  // once before waiting: what completed while it was off was not signalled. No system call.
  virtual void signal_completions(bool on) { static_cast<void>(on); }
  // Blocks until the kernel holds no request of this writer (their results are dropped: for a
  // thread about to end, whose writer dies elsewhere). Only the submitting thread may call it.
  virtual void settle() noexcept {}
  // The next offset to be reserved.
  virtual std::uint64_t offset() const = 0;
  virtual writer_backend backend() const = 0;
};

struct append_writer_config {
  std::size_t queue_depth = 16;
  bool force_plain = false;
  // A pipe or other unseekable output: plain writes, in order, at the descriptor's own
  // position (io_uring would not keep concurrent writes to a pipe in order).
  bool sequential = false;
};

// Creates the io_uring writer, or the plain one when io_uring cannot be set up (EPERM, ENOSYS,
// EINVAL, ENOMEM from io_uring_queue_init or io_uring_register_eventfd: sysctl
// kernel.io_uring_disabled, seccomp in containers, old kernels), when config.force_plain or
// config.sequential (then writev, with no fallback reason to print), or when
// the environment variable AREC_FORCE_PLAIN_IO=1 is set. Writes go to `fd` starting at
// `start_offset`; `path_for_messages` names the file in errors. Other setup failures throw
// std::system_error; queue_depth 0 throws std::invalid_argument.
std::pair<std::unique_ptr<append_writer>, writer_choice> make_append_writer(
    int fd, std::string path_for_messages, std::uint64_t start_offset,
    append_writer_config config = {});

// One write request: where its unwritten remainder goes and which iovecs describe it. Empty
// pieces are dropped on assign, so `iov` holds only non-empty ones.
struct write_request {
  std::array<iovec, append_writer::max_pieces> iov{};
  unsigned first = 0;        // the first iovec not completely written
  unsigned count = 0;        // iovecs in use
  std::uint64_t offset = 0;  // file offset of the first unwritten byte
  std::uint64_t cookie = 0;

  // Describes `pieces` to be written at `at`; returns their total size.
  // Precondition: pieces.size() <= append_writer::max_pieces.
  std::size_t assign(std::span<const std::span<const std::byte>> pieces, std::uint64_t at,
                     std::uint64_t id) noexcept;
  // Accounts for `written` bytes having reached the file (a short write's result): drops
  // finished iovecs, shortens the first unfinished one, moves the offset. Returns true when
  // nothing remains. Precondition: written <= remaining_bytes().
  bool advance(std::size_t written) noexcept;
  std::span<const iovec> remaining() const noexcept { return {iov.data() + first, count - first}; }
  std::size_t remaining_bytes() const noexcept;
};

// The fixed table of request slots of one writer: free slots, slots in flight, and finished
// slots waiting to be handed out by reap(). Sized once; never allocates afterwards.
class request_slots {
 public:
  explicit request_slots(std::size_t depth);

  bool has_free() const noexcept { return !free_.empty(); }
  // Slots taken and not yet handed out.
  std::size_t in_use() const noexcept { return requests_.size() - free_.size(); }
  bool has_finished() const noexcept { return !finished_.empty(); }

  // Takes a free slot and describes the request in it (write_request::assign). Throws
  // std::logic_error when no slot is free or there are more than max_pieces pieces.
  std::uint32_t acquire(std::span<const std::span<const std::byte>> pieces, std::uint64_t at,
                        std::uint64_t cookie);
  write_request& operator[](std::uint32_t slot) noexcept { return requests_[slot]; }
  // Marks `slot` finished: its cookie comes out of the next hand_out().
  void finish(std::uint32_t slot) noexcept;
  // Moves up to done.size() cookies of finished slots, oldest first, into `done`, frees those
  // slots and returns how many.
  std::size_t hand_out(std::span<std::uint64_t> done) noexcept;

 private:
  std::vector<write_request> requests_;
  std::vector<std::uint32_t> free_;      // capacity reserved for every slot
  std::vector<std::uint32_t> finished_;  // capacity reserved for every slot
};

}  // namespace arec::io
