#include "async/event_loop.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "async/timer.hpp"

namespace arec::async {
namespace {

using namespace std::chrono_literals;

task<void> wait_long(timer& clock, bool& elapsed, bool& done) {
  elapsed = co_await clock.wait_for(1h);
  done = true;
  co_return;
}

TEST(AsyncEventLoop, StopFromAnotherThreadEndsRun) {
  event_loop loop;
  timer keeps_it_busy(loop.get_executor());
  bool elapsed = true, done = false;
  spawn_detached(loop.get_executor(), wait_long(keeps_it_busy, elapsed, done));
  std::atomic<bool> ran{false};
  std::thread other([&] {
    post(loop.get_executor(), [&] {
      ran = true;
      loop.stop();
    });
  });
  loop.run();
  other.join();
  EXPECT_TRUE(ran);
  EXPECT_FALSE(done) << "run() returned at stop(), not when the work ended";
}

}  // namespace
}  // namespace arec::async
