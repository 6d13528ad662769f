// timer: a coroutine waits a while on its executor; cancel() cuts the wait short.
#pragma once

#include <asio/steady_timer.hpp>
#include <chrono>

#include "async/spawn.hpp"
#include "async/task.hpp"

namespace arec::async {

class timer {
 public:
  explicit timer(const executor& on) : timer_(on) {}
  // True when `duration` passed, false when cancel() (or the context's end) cut the wait short.
  task<bool> wait_for(std::chrono::steady_clock::duration duration);
  void cancel() { timer_.cancel(); }

 private:
  asio::steady_timer timer_;
};

}  // namespace arec::async
