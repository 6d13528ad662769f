// event_loop: the control thread's loop. The thread that calls run() runs everything spawned or
// posted on it until stop(), which any thread may call.
#pragma once

#include <asio/io_context.hpp>

#include "async/spawn.hpp"

namespace arec::async {

class event_loop {
 public:
  event_loop() = default;
  event_loop(const event_loop&) = delete;
  event_loop& operator=(const event_loop&) = delete;

  executor get_executor() { return context_.get_executor(); }
  // Runs until stop(); what is still pending then stays pending (and dies with the loop).
  void run() { context_.run(); }
  void stop() { context_.stop(); }

 private:
  asio::io_context context_{1};
};

}  // namespace arec::async
