#include "record/data_stream.hpp"

#include <unistd.h>

#include "async/readiness.hpp"

namespace arec::record {

data_stream::data_stream(const asio::any_io_executor& executor,
                         std::unique_ptr<io::append_writer> writer)
    : executor_(executor), writer_(std::move(writer)), slot_freed_(executor), wake_pump_(executor) {}

async::task<void> data_stream::wait_for_slot() {
  while (!writer_->can_submit()) {
    slot_freed_.reset();
    co_await slot_freed_.wait();
  }
}

async::task<void> data_stream::write(std::span<const std::span<const std::byte>> pieces,
                                     async::event& done) {
  co_await wait_for_slot();
  done.reset();
  writer_->submit(pieces, reinterpret_cast<std::uintptr_t>(&done));
  if (writer_->completion_fd() < 0)
    reap();  // the plain backend finished inside submit()
  else
    wake_pump_.set();
  co_await done.wait();
}

void data_stream::reap() {
  std::size_t n = writer_->reap(finished_);
  for (std::size_t i = 0; i < n; ++i) reinterpret_cast<async::event*>(finished_[i])->set();
  if (n > 0) slot_freed_.set();
}

async::task<void> data_stream::pump() {
  int fd = writer_->completion_fd();
  if (fd < 0) co_return;
  async::readiness completions(executor_, fd);
  while (!closed_ || writer_->in_flight() > 0) {
    if (writer_->in_flight() == 0) {
      // Nothing to wait for on the eventfd: sleep until a write starts or close() is called.
      wake_pump_.reset();
      co_await wake_pump_.wait();
      continue;
    }
    co_await completions.readable();
    std::uint64_t count;
    [[maybe_unused]] auto ignored = ::read(fd, &count, sizeof count);  // re-arm the eventfd
    reap();
  }
}

void data_stream::close() {
  closed_ = true;
  wake_pump_.set();
}

}  // namespace arec::record
