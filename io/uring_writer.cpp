#include "io/uring_writer.hpp"

#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <stdexcept>
#include <utility>

#include "base/system_error.hpp"

namespace arec::io {

namespace {

#if defined(__SANITIZE_THREAD__)
#define AREC_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AREC_UNDER_TSAN 1
#endif
#endif

#ifdef AREC_UNDER_TSAN
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

// ThreadSanitizer cannot judge accesses to the ring memory: the kernel's side of each is
// invisible to it, and liburing maps the rings with raw system calls it does not intercept, so
// its shadow there is stale. TSan's munmap forgets only whole pages: the tail of a file another
// thread mapped there before (libelf's) read as that thread's write, and the ring's first access
// was reported as a race with it (LLVM 14). The ring's accesses are hidden from it instead.
class ring_memory_access {
 public:
#ifdef AREC_UNDER_TSAN
  ring_memory_access() noexcept {
    __tsan_ignore_thread_begin();
  }
  ~ring_memory_access() {
    __tsan_ignore_thread_end();
  }
#else
  // Provided, not defaulted: a scope guard, which the compiler then does not call unused.
  ring_memory_access() noexcept {}
  ~ring_memory_access() {}
#endif
  ring_memory_access(const ring_memory_access&) = delete;
  ring_memory_access& operator=(const ring_memory_access&) = delete;
};

}  // namespace

uring_queue::uring_queue(unsigned entries) {
  // TASKRUN_FLAG shows deferred work in the shared flags: liburing's peek then takes it (one
  // system call), and reap() knows when to look again.
  constexpr unsigned deferred = IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
                                IORING_SETUP_R_DISABLED | IORING_SETUP_TASKRUN_FLAG;
  // liburing returns -errno instead of setting errno; converted here, once.
  int result = io_uring_queue_init(entries, &ring_, deferred);
  defers_ = result == 0;
  if (result == -EINVAL) result = io_uring_queue_init(entries, &ring_, 0);  // before 6.1
  if (result < 0) base::throw_system_error(-result, "io_uring_queue_init");
}

uring_queue::~uring_queue() {
  // Only the issuer may wait on a deferring ring; a thread that ended settled it first.
  if (!defers_ || issuer_ == 0 || issuer_ == ::gettid()) settle();
  io_uring_queue_exit(&ring_);
}

void uring_queue::settle() noexcept {
  while (in_kernel_ > 0) {
    int result = wait();
    if (result == -EINTR) continue;
    if (result < 0) break;  // cannot wait any longer; nothing better to do
    take();
  }
}

int uring_queue::wait() noexcept {
  ring_memory_access access;
  io_uring_cqe* cqe = nullptr;
  return io_uring_wait_cqe(&ring_, &cqe);
}

std::optional<uring_completion> uring_queue::take() noexcept {
  std::optional<uring_completion> completion = peek_and_consume();
  if (completion) --in_kernel_;
  return completion;
}

std::optional<uring_completion> uring_queue::peek_and_consume() noexcept {
  ring_memory_access access;
  io_uring_cqe* cqe = nullptr;
  // peek_batch enters the kernel at most once to take deferred work; liburing 2.3's
  // io_uring_peek_cqe enters again for as long as IORING_SQ_TASKRUN is set, which on 6.18 can
  // be for ever (seen: a test spinning in it, its io-wq worker asleep).
  if (io_uring_peek_batch_cqe(&ring_, &cqe, 1) != 1) return std::nullopt;
  uring_completion completion{io_uring_cqe_get_data64(cqe), cqe->res};
  io_uring_cqe_seen(&ring_, cqe);
  return completion;
}

void uring_queue::prepare_writev(int fd, std::span<const iovec> iov, std::uint64_t offset,
                                 std::uint64_t user_data) {
  ring_memory_access access;
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) throw std::logic_error("uring_queue: submission queue full");
  io_uring_prep_writev(sqe, fd, iov.data(), static_cast<unsigned>(iov.size()), offset);
  io_uring_sqe_set_data64(sqe, user_data);
}

void uring_queue::submit(std::string_view object) {
  if (defers_ && issuer_ == 0) become_issuer(object);
  for (;;) {
    int result = io_uring_submit(&ring_);
    if (result >= 0) {
      in_kernel_ += static_cast<unsigned>(result);
      return;
    }
    if (result != -EINTR) base::throw_system_error(-result, "io_uring_submit", object);
  }
}

// liburing 2.3 declares io_uring_enable_rings but does not export it: the system call itself.
void uring_queue::become_issuer(std::string_view object) {
  if (::syscall(__NR_io_uring_register, ring_.ring_fd, IORING_REGISTER_ENABLE_RINGS, nullptr, 0) <
      0)
    base::throw_system_error(errno, "io_uring_register IORING_REGISTER_ENABLE_RINGS", object);
  issuer_ = ::gettid();
}

bool uring_queue::work_deferred() const noexcept {
  ring_memory_access access;
  return defers_ && (IO_URING_READ_ONCE(*ring_.sq.kflags) & IORING_SQ_TASKRUN) != 0;
}

bool uring_queue::signal_event_fd(bool on) noexcept {
  ring_memory_access access;
  return io_uring_cq_eventfd_toggle(&ring_, on) == 0;
}

namespace {

unique_fd make_event_fd() {
  return unique_fd{base::check_syscall(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), "eventfd")};
}

}  // namespace

uring_writer::uring_writer(int fd, std::string path, std::uint64_t start_offset,
                           std::size_t queue_depth)
    : fd_(fd),
      path_(std::move(path)),
      offset_(start_offset),
      slots_(queue_depth),
      event_fd_(make_event_fd()),
      // A slot holds at most one entry in the submission queue at a time, so queue_depth
      // entries never run out; the completion queue is twice that by default.
      ring_(static_cast<unsigned>(queue_depth)) {
  int result = io_uring_register_eventfd(ring_.get(), event_fd_.get());
  if (result < 0) base::throw_system_error(-result, "io_uring_register_eventfd");
}

void uring_writer::submit(std::span<const std::span<const std::byte>> pieces,
                          std::uint64_t cookie) {
  std::uint32_t slot = slots_.acquire(pieces, offset_, cookie);
  offset_ += slots_[slot].remaining_bytes();
  prepare_write(slot);
  ring_.submit(path_);
}

void uring_writer::prepare_write(std::uint32_t slot) {
  const write_request& request = slots_[slot];
  // The iovecs live in the slot until the request finishes, so they outlive the submission
  // even on kernels without IORING_FEAT_SUBMIT_STABLE.
  ring_.prepare_writev(fd_, request.remaining(), request.offset, slot);
}

void uring_writer::signal_completions(bool on) {
  if (on == signalling_) return;
  // Fails only where the kernel has no CQ ring flags (before 5.8): it then signals every
  // completion, which is what `on` asks for and merely wasteful for `off`.
  if (ring_.signal_event_fd(on)) signalling_ = on;
}

std::size_t uring_writer::reap(std::span<std::uint64_t> done) {
  // Clear the eventfd before looking at the ring: a completion posted after this read signals
  // it again, so a caller waiting for readability never misses one. Not signalling, nobody
  // waits on it, and the read would be a system call per reap for nothing.
  if (ring_.defers_completions()) {
    // The eventfd is signalled when a worker defers a completion and again when the peek in
    // collect_completions() posts it: cleared after, or every awaited write would wake its
    // waiter twice. A completion deferred after the last peek shows in the flags (its signal
    // may have been cleared): look again.
    // Bounded: on 6.18 the flag can stay set with no work left, and looking again for ever
    // spun a reaping thread at 100 % CPU. A completion deferred after the last look signals
    // the eventfd again, and every round reaps anyway.
    constexpr int max_looks = 8;
    int looks = 0;
    do {
      collect_completions();
      if (signalling_) clear_event_fd();
    } while (ring_.work_deferred() && ++looks < max_looks);
  } else {
    if (signalling_) clear_event_fd();
    collect_completions();
  }
  return slots_.hand_out(done);
}

void uring_writer::wait_one() {
  // A short write's completion finishes nothing, so wait until something has finished.
  while (!slots_.has_finished() && ring_.in_kernel() > 0) {
    int result = ring_.wait();
    if (result == -EINTR) continue;
    if (result < 0) base::throw_system_error(-result, "io_uring_wait_cqe", path_);
    collect_completions();
  }
}

void uring_writer::collect_completions() {
  bool resubmitted = false;
  while (std::optional<uring_completion> completion = ring_.take()) {
    auto slot = static_cast<std::uint32_t>(completion->user_data);
    int result = completion->result;
    write_request& request = slots_[slot];
    if (result == -EAGAIN || result == -EINTR) {
      prepare_write(slot);  // nothing was written; try the same again
      resubmitted = true;
    } else if (result < 0) {
      base::throw_system_error(-result, "write", path_);
    } else if (result == 0 && request.remaining_bytes() > 0) {
      // No progress and no error: treat as an I/O error rather than loop forever.
      base::throw_system_error(EIO, "write", path_);
    } else if (request.advance(static_cast<std::size_t>(result))) {
      slots_.finish(slot);
    } else {
      prepare_write(slot);  // short write: the remainder, at the offset after what was written
      resubmitted = true;
    }
  }
  if (resubmitted) ring_.submit(path_);
}

void uring_writer::clear_event_fd() noexcept {
  std::uint64_t count = 0;
  // EAGAIN (nothing signalled) is the common case and needs nothing.
  [[maybe_unused]] ssize_t ignored = ::read(event_fd_.get(), &count, sizeof count);
}

}  // namespace arec::io
