#include "record/streaming/data_stream.hpp"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "async/readiness.hpp"

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
    slot_freed_.reset();
    co_await slot_freed_.wait();
  }
}

std::size_t data_stream::take_slot(async::event& done, std::uint64_t size,
                                   std::uint64_t samples) {
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (pending_[i].state == pending_write::state::free) {
      std::uint64_t start = writer_->offset();
      pending_[i] = {pending_write::state::in_flight, &done, start, start + size, samples};
      return i;
    }
  }
  throw std::logic_error("data_stream: more writes in flight than the writer allows");
}

async::task<void> data_stream::write(std::span<const std::span<const std::byte>> pieces,
                                     async::event& done, std::uint64_t samples) {
  co_await wait_for_slot();
  throw_if_failed();
  done.reset();
  std::uint64_t size = 0;
  for (auto piece : pieces) size += piece.size();
  writer_->submit(pieces, take_slot(done, size, samples));
  if (writer_->completion_fd() < 0)
    reap();  // the plain backend finished inside submit()
  else
    wake_pump_.set();
  co_await done.wait();
  throw_if_failed();
}

void data_stream::reap() {
  std::size_t n = 0;
  try {
    n = writer_->reap(finished_);
  } catch (...) {
    fail(std::current_exception());
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    pending_write& finished = pending_[finished_[i]];
    finished.state = pending_write::state::completed;
    finished.done->set();
  }
  if (n > 0) {
    publish_durable_offset();
    slot_freed_.set();
  }
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
  async::readiness completions(executor_, fd);
  while (!failure_ && (!closed_ || writer_->in_flight() > 0)) {
    if (writer_->in_flight() == 0) {
      // Nothing to wait for on the eventfd: sleep until a write starts or close() is called.
      wake_pump_.reset();
      co_await wake_pump_.wait();
      continue;
    }
    co_await completions.readable();
    reap();  // reap() also clears the eventfd
  }
}

void data_stream::close() {
  closed_ = true;
  wake_pump_.set();
}

}  // namespace arec::record
