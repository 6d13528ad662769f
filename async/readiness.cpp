#include "async/readiness.hpp"

#include <asio/redirect_error.hpp>

namespace arec::async {

readiness::readiness(const asio::any_io_executor& executor, int fd) : descriptor_(executor, fd) {}

// The fd belongs to its owner (perf_event, writer, pidfd): release it instead of closing it.
readiness::~readiness() { descriptor_.release(); }

task<bool> readiness::readable() {
  std::error_code error;
  co_await descriptor_.async_wait(asio::posix::stream_descriptor::wait_read,
                                  asio::redirect_error(asio::use_awaitable, error));
  co_return !error;
}

void readiness::cancel() {
  std::error_code ignored;
  descriptor_.cancel(ignored);
}

}  // namespace arec::async
