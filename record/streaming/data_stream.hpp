// data_stream: one data file as the coroutines of a streaming thread see it: write() suspends
// until the bytes are on the file, while a pump coroutine turns io_uring completions (signalled
// on an eventfd the executor waits on) into resumptions. A write started with start_write()
// is nobody's wait: its completion is reaped by poll() at the caller's next wake-up, and the
// eventfd is signalled only while someone waits (write(), a full writer, close()), so such a
// write costs no wake-up of its own. With the plain backend writes complete synchronously and
// there is no pump. A failed write fails the stream: every waiting writer resumes with the
// error, and the owner is told once.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "async/event.hpp"
#include "async/readiness.hpp"
#include "async/spawn.hpp"
#include "async/task.hpp"
#include "io/append_writer.hpp"

namespace arec::record {

class data_stream {
 public:
  // `on_failure` runs on the stream's executor, once, when a write fails.
  data_stream(const async::executor& executor, std::unique_ptr<io::append_writer> writer,
              std::function<void()> on_failure);

  // Appends `pieces` at the end of the file and returns once they are written. `done` is the
  // caller's own completion event (one per writer of the stream, reused for every write);
  // `samples` is how many samples the bytes hold, counted once they are durable.
  // Throws the write's std::system_error when the stream failed.
  async::task<void> write(std::span<const std::span<const std::byte>> pieces, async::event& done,
                          std::uint64_t samples = 0);
  // Starts appending `pieces` (their offset is reserved now) and returns at once; `done` is set
  // when they are on the file or the stream failed (then throw_if_failed() throws). Nothing
  // waits for the completion: poll(), a write() or close() reaps it. The pieces must stay
  // unchanged until `done` is set and the stream has not failed. Precondition: a slot is free
  // (wait_for_slot() with no suspension since) and the stream has not failed.
  void start_write(std::span<const std::span<const std::byte>> pieces, async::event& done,
                   std::uint64_t samples = 0);
  // Reaps, without waiting, the writes that completed (a failed one fails the stream); returns
  // how many.
  std::size_t poll();
  // Returns once a write can start without waiting; a write() right after it, with no
  // suspension between, keeps the order in which callers prepared their bytes.
  async::task<void> wait_for_slot();
  // Waits for completions until close() and the last write finished. Spawn once per stream.
  async::task<void> pump();
  // No more writes will be started; the pump ends once the last one has finished.
  void close();
  // Waits until the kernel holds none of this stream's writes (see append_writer::settle).
  void settle() noexcept { writer_->settle(); }
  // From now on every completion is reaped as it comes, start_write()'s too: for an owner
  // that waits for the writes already started before it can close().
  void expedite();

  std::uint64_t offset() const { return writer_->offset(); }
  // The end of the prefix of the file that is completely written: everything before it is on
  // the file, whatever order io_uring completed the writes in. Readable from any thread.
  std::uint64_t durable_offset() const { return durable_.load(std::memory_order_acquire); }
  // Samples within the durable prefix. Readable from any thread.
  std::uint64_t durable_samples() const { return durable_samples_.load(std::memory_order_relaxed); }
  bool failed() const { return static_cast<bool>(failure_); }
  // Throws the error that failed the stream, if any.
  void throw_if_failed() const;
  io::writer_backend backend() const { return writer_->backend(); }

 private:
  // A write from submission until the file is complete up to its end.
  struct pending_write {
    enum class state { free, in_flight, completed } state = state::free;
    async::event* done = nullptr;
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    std::uint64_t samples = 0;
    bool awaited = true;  // by write(); start_write()'s completions wait for poll()
  };
  static constexpr std::size_t max_pending = 64;

  std::size_t take_slot(async::event& done, std::uint64_t size, std::uint64_t samples,
                        bool awaited);
  void submit(std::span<const std::span<const std::byte>> pieces, async::event& done,
              std::uint64_t samples, bool awaited);
  // Whether a completion has a waiter now, so the pump must be woken by it.
  bool completion_awaited() const;
  void set_signalling(bool on);
  std::size_t reap();
  // The pump waits on the completion eventfd only while a waited-for write is in flight;
  // another coroutine's reap (poll(), a write's own) may take that completion and clear the
  // eventfd, and nothing would then wake the pump to see the stream closed.
  void release_pump_if_idle();
  void fail(std::exception_ptr failure);
  void publish_durable_offset();

  async::executor executor_;
  std::unique_ptr<io::append_writer> writer_;
  std::function<void()> on_failure_;
  async::event slot_freed_;
  async::event wake_pump_;
  std::optional<async::readiness> completions_;  // the pump's wait on completion_fd()
  bool pump_awaits_completions_ = false;
  bool closed_ = false;
  bool expedited_ = false;
  bool signalling_ = true;          // the writer's completion_fd() is signalled
  std::size_t awaited_writes_ = 0;  // write()s in flight
  std::size_t slot_waiters_ = 0;    // in wait_for_slot()
  std::exception_ptr failure_;
  std::array<pending_write, max_pending> pending_{};
  std::array<std::uint64_t, max_pending> finished_{};
  std::atomic<std::uint64_t> durable_{0};
  std::atomic<std::uint64_t> durable_samples_{0};
};

}  // namespace arec::record
