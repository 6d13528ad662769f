#include "async/event.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "async/event_loop.hpp"

namespace arec::async {
namespace {

using namespace std::chrono_literals;

task<void> wait_event(event& flag, event_loop& loop, int& woken) {
  co_await flag.wait();
  ++woken;
  loop.stop();
  co_return;
}

TEST(AsyncEvent, SetWakesTheWaiterAndASetEventDoesNotBlock) {
  event_loop loop;
  event flag(loop.get_executor());
  int woken = 0;
  spawn_detached(loop.get_executor(), wait_event(flag, loop, woken));
  post(loop.get_executor(), [&] { flag.set(); });
  loop.run();
  EXPECT_EQ(woken, 1);

  event_loop again;
  event already(again.get_executor());
  already.set();
  spawn_detached(again.get_executor(), wait_event(already, again, woken));
  again.run();
  EXPECT_EQ(woken, 2);
}

}  // namespace
}  // namespace arec::async
