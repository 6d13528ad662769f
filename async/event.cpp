#include "async/event.hpp"

#include <asio/redirect_error.hpp>

namespace arec::async {

event::event(const asio::any_io_executor& executor)
    : timer_(executor, asio::steady_timer::time_point::max()) {}

task<void> event::wait() {
  while (!set_) {
    std::error_code ignored;  // cancellation is the wake-up; set_ says whether it was ours
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
}

void event::set() {
  set_ = true;
  timer_.cancel();
}

}  // namespace arec::async
