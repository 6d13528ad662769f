#include "async/timer.hpp"

#include <asio/redirect_error.hpp>
#include <asio/use_awaitable.hpp>

namespace arec::async {

task<bool> timer::wait_for(std::chrono::steady_clock::duration duration) {
  std::error_code cancelled;
  timer_.expires_after(duration);
  co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, cancelled));
  co_return !cancelled;
}

}  // namespace arec::async
