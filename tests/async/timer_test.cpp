#include "async/timer.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "async/event_loop.hpp"

namespace arec::async {
namespace {

using namespace std::chrono_literals;

task<void> wait_then_stop(timer& clock, event_loop& loop, bool& elapsed) {
  elapsed = co_await clock.wait_for(1ms);
  loop.stop();
  co_return;
}

TEST(AsyncTimer, WaitEndsTrueWhenTheTimePassed) {
  event_loop loop;
  timer clock(loop.get_executor());
  bool elapsed = false;
  spawn_detached(loop.get_executor(), wait_then_stop(clock, loop, elapsed));
  loop.run();
  EXPECT_TRUE(elapsed);
}

task<void> wait_long(timer& clock, bool& elapsed, bool& done) {
  elapsed = co_await clock.wait_for(1h);
  done = true;
  co_return;
}

TEST(AsyncTimer, CancelEndsTheWaitFalse) {
  event_loop loop;
  timer clock(loop.get_executor());
  bool elapsed = true, done = false;
  spawn_detached(loop.get_executor(), wait_long(clock, elapsed, done));
  post(loop.get_executor(), [&] { clock.cancel(); });
  post(loop.get_executor(), [&] { post(loop.get_executor(), [&] { loop.stop(); }); });
  loop.run();
  EXPECT_TRUE(done);
  EXPECT_FALSE(elapsed);
}

}  // namespace
}  // namespace arec::async
