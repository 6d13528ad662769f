// event: a manual-reset signal one coroutine awaits and others set, all on one executor.
// Built on a timer that never expires: set() cancels the wait, which resumes the waiter.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/steady_timer.hpp>

#include "async/task.hpp"

namespace arec::async {

class event {
 public:
  explicit event(const asio::any_io_executor& executor);

  // Returns once the event is set (immediately if it already is).
  task<void> wait();
  void set();
  void reset() { set_ = false; }

 private:
  asio::steady_timer timer_;
  bool set_ = false;
};

}  // namespace arec::async
