#include "record/streaming/data_stream.hpp"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace arec::record {

data_stream::data_stream(const async::executor& executor,
                         std::unique_ptr<io::append_writer> writer,
                         std::function<void()> on_failure)
    : executor_(executor),
      writer_(std::move(writer)),
      on_failure_(std::move(on_failure)),
      slot_freed_(executor),
      wake_pump_(executor),
      durable_(writer_->offset()) {}

async::task<void> data_stream::wait_for_slot() {
  while (!failure_ && !writer_->can_submit()) {
    // Only a completion frees a slot: the pump must be woken by them meanwhile.
    ++slot_waiters_;
    wake_pump_.set();
    slot_freed_.reset();
    co_await slot_freed_.wait();
    --slot_waiters_;
  }
}

std::size_t data_stream::take_slot(async::event& done, std::uint64_t size, std::uint64_t samples,
                                   bool awaited) {
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (pending_[i].state == pending_write::state::free) {
      std::uint64_t start = writer_->offset();
      pending_[i] = {pending_write::state::in_flight, &done, start, start + size, samples, awaited};
      return i;
    }
  }
  throw std::logic_error("data_stream: more writes in flight than the writer allows");
}

void data_stream::submit(std::span<const std::span<const std::byte>> pieces, async::event& done,
                         std::uint64_t samples, bool awaited) {
  done.reset();
  std::uint64_t size = 0;
  for (auto piece : pieces) size += piece.size();
  writer_->submit(pieces, take_slot(done, size, samples, awaited));
  if (awaited) ++awaited_writes_;
  if (writer_->completion_fd() < 0)
    reap();  // the plain backend finished inside submit()
  else
    wake_pump_.set();  // it may have to wait for completions now, or for the first time
}

async::task<void> data_stream::write(std::span<const std::span<const std::byte>> pieces,
                                     async::event& done, std::uint64_t samples) {
  co_await wait_for_slot();
  throw_if_failed();
  submit(pieces, done, samples, true);
  co_await done.wait();
  throw_if_failed();
}

void data_stream::start_write(std::span<const std::span<const std::byte>> pieces,
                              async::event& done, std::uint64_t samples) {
  throw_if_failed();
  submit(pieces, done, samples, false);
}

std::size_t data_stream::poll() {
  return !failure_ && writer_->in_flight() > 0 ? reap() : 0;
}

bool data_stream::completion_awaited() const {
  return awaited_writes_ > 0 || slot_waiters_ > 0 || closed_ || expedited_;
}

std::size_t data_stream::reap() {
  std::size_t n = 0;
  try {
    n = writer_->reap(finished_);
  } catch (...) {
    fail(std::current_exception());
    return 0;
  }
  for (std::size_t i = 0; i < n; ++i) {
    pending_write& finished = pending_[finished_[i]];
    finished.state = pending_write::state::completed;
    if (finished.awaited) --awaited_writes_;
    finished.done->set();
  }
  if (n > 0) {
    publish_durable_offset();
    slot_freed_.set();
  }
  release_pump_if_idle();
  return n;
}

void data_stream::release_pump_if_idle() {
  if (pump_awaits_completions_ && (writer_->in_flight() == 0 || !completion_awaited()))
    completions_->cancel();  // the pump looks again at what it waits for
}

// Completed writes join the durable prefix in file order: a write finished early waits for the
// ones before it (io_uring completes in any order).
void data_stream::publish_durable_offset() {
  std::uint64_t durable = durable_.load(std::memory_order_relaxed);
  std::uint64_t samples = durable_samples_.load(std::memory_order_relaxed);
  for (bool advanced = true; advanced;) {
    advanced = false;
    for (pending_write& write : pending_) {
      if (write.state == pending_write::state::completed && write.start == durable) {
        durable = write.end;
        samples += write.samples;
        write.state = pending_write::state::free;
        advanced = true;
      }
    }
  }
  durable_samples_.store(samples, std::memory_order_relaxed);
  durable_.store(durable, std::memory_order_release);
}

void data_stream::fail(std::exception_ptr failure) {
  if (failure_) return;
  failure_ = failure;
  // Wake everyone who waits on this stream; they see the failure and end.
  for (pending_write& write : pending_)
    if (write.state == pending_write::state::in_flight) write.done->set();
  slot_freed_.set();
  close();
  if (on_failure_) on_failure_();
}

void data_stream::throw_if_failed() const {
  if (failure_) std::rethrow_exception(failure_);
}

async::task<void> data_stream::pump() {
  int fd = writer_->completion_fd();
  if (fd < 0) co_return;
  completions_.emplace(executor_, fd);
  while (!failure_ && (!closed_ || writer_->in_flight() > 0)) {
    if (writer_->in_flight() == 0 || !completion_awaited()) {
      // Nothing in flight, or nobody waiting for what is: completions wake nobody until a
      // write() starts, a slot is waited for, or close() is called (each sets wake_pump_).
      set_signalling(false);
      wake_pump_.reset();
      co_await wake_pump_.wait();
      continue;
    }
    if (!signalling_) {
      set_signalling(true);
      reap();  // what completed while nothing was signalled
      continue;
    }
    pump_awaits_completions_ = true;
    co_await completions_->readable();  // false when release_pump_if_idle() cancelled it
    pump_awaits_completions_ = false;
    reap();  // reap() also clears the eventfd
  }
}

void data_stream::set_signalling(bool on) {
  if (on == signalling_) return;
  writer_->signal_completions(on);
  signalling_ = on;
}

void data_stream::close() {
  closed_ = true;
  wake_pump_.set();
  release_pump_if_idle();
}

void data_stream::expedite() {
  expedited_ = true;
  wake_pump_.set();
}

}  // namespace arec::record
