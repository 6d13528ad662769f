// uring_writer: the append_writer backend on io_uring (liburing), with an eventfd that signals
// completions so the caller's event loop can wait for them (or not, while the caller reaps on
// its own schedule); and the owner of the ring itself.
#pragma once

#include <liburing.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "io/append_writer.hpp"
#include "io/unique_fd.hpp"

namespace arec::io {

// A completion's tag and result (bytes written or -errno).
struct uring_completion {
  std::uint64_t user_data = 0;
  int result = 0;
};

// Owns one io_uring instance and counts the requests the kernel holds. The destructor waits
// for those before io_uring_queue_exit: the kernel may still read buffers the caller frees
// right after the owner dies.
//
// Where the kernel has them (6.1+), the ring defers its completion work to its issuer
// (IORING_SETUP_DEFER_TASKRUN | SINGLE_ISSUER): a write the kernel finished in a worker does not
// wake the thread that submitted it (a streaming thread asleep between drains); its completion
// appears when that thread next peeks. The issuer is the thread of the first
// submit (the ring is made disabled and enabled there), so a ring may be made on one thread
// and used on another; only the issuer may then submit, take and wait. A thread that ends with
// requests in the kernel must settle() first: nobody else can wait for them.
class uring_queue {
 public:
  // io_uring_queue_init(entries); throws std::system_error "io_uring_queue_init: <strerror>".
  explicit uring_queue(unsigned entries);
  uring_queue(const uring_queue&) = delete;
  uring_queue& operator=(const uring_queue&) = delete;
  ~uring_queue();

  io_uring* get() noexcept { return &ring_; }
  // Prepares a writev of iov at offset, tagged with user_data. Throws std::logic_error if the
  // submission queue is full (a caller bug: the writer never prepares more entries than it has
  // slots).
  void prepare_writev(int fd, std::span<const iovec> iov, std::uint64_t offset,
                      std::uint64_t user_data);
  // Submits the prepared entries; throws std::system_error "io_uring_submit OBJECT". The first
  // call makes this thread the ring's issuer.
  void submit(std::string_view object);
  // The next completion, consumed (one peek; it may take deferred work), or none yet.
  std::optional<uring_completion> take() noexcept;
  // Waits until a completion is there, without consuming it: 0 or -errno.
  int wait() noexcept;
  // Completions the kernel deferred to the issuer and has not posted yet (a peek posts them).
  bool work_deferred() const noexcept;
  // Signals the registered eventfd on completions, or not; false where the kernel cannot choose.
  bool signal_event_fd(bool on) noexcept;
  // Waits for every request in the kernel and drops its completion. On the issuer only.
  void settle() noexcept;
  // Submitted requests whose completion has not been consumed.
  unsigned in_kernel() const noexcept { return in_kernel_; }
  // Completions are deferred to the issuer (false on kernels before 6.1).
  bool defers_completions() const noexcept { return defers_; }

 private:
  void become_issuer(std::string_view object);
  std::optional<uring_completion> peek_and_consume() noexcept;

  io_uring ring_{};
  unsigned in_kernel_ = 0;
  bool defers_ = false;
  pid_t issuer_ = 0;  // the thread of the first submit, once there was one
};

// Writes with io_uring_prep_writev at offsets reserved by submit(); a completion with a short
// count is resubmitted for the remainder, a negative one is thrown by reap() as
// "write PATH: <strerror>". Not copyable or movable: the kernel holds pointers into slots_.
class uring_writer final : public append_writer {
 public:
  // Sets up a ring of queue_depth entries and an eventfd registered with it. Throws
  // std::system_error naming io_uring_queue_init, eventfd or io_uring_register_eventfd.
  uring_writer(int fd, std::string path, std::uint64_t start_offset, std::size_t queue_depth);
  uring_writer(const uring_writer&) = delete;
  uring_writer& operator=(const uring_writer&) = delete;

  void submit(std::span<const std::span<const std::byte>> pieces, std::uint64_t cookie) override;
  bool can_submit() const override { return slots_.has_free(); }
  std::size_t in_flight() const override { return slots_.in_use(); }
  std::size_t reap(std::span<std::uint64_t> done) override;
  void wait_one() override;
  int completion_fd() const override { return event_fd_.get(); }
  // Sets IORING_CQ_EVENTFD_DISABLED in the completion ring's flags (shared memory). Kernels
  // without that flag keep signalling: more wake-ups, the same results.
  void signal_completions(bool on) override;
  void settle() noexcept override { ring_.settle(); }
  std::uint64_t offset() const override { return offset_; }
  writer_backend backend() const override { return writer_backend::io_uring; }

 private:
  void prepare_write(std::uint32_t slot);
  // Consumes every completion ready in the ring: finishes, resubmits or throws.
  void collect_completions();
  void clear_event_fd() noexcept;

  int fd_;
  std::string path_;
  std::uint64_t offset_;
  // Declared before ring_ so that they outlive the ring's wait for in-flight requests.
  request_slots slots_;
  unique_fd event_fd_;
  bool signalling_ = true;
  uring_queue ring_;
};

}  // namespace arec::io
