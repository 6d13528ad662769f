#include "async/executor_thread.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <stdexcept>
#include <thread>

#include "async/spawn.hpp"

namespace arec::async {
namespace {

using namespace std::chrono_literals;

task<void> fail() {
  throw std::runtime_error("failed on purpose");
  co_return;
}

TEST(AsyncExecutorThread, RunSyncRunsOnThePinnedThreadAndJoinRethrows) {
  executor_thread worker({0}, "arec-test");
  std::thread::id where = worker.run_sync([] { return std::this_thread::get_id(); });
  EXPECT_NE(where, std::this_thread::get_id());
  if (worker.pin_error().empty()) {  // a cpuset without cpu 0 leaves it unpinned, and says so
    EXPECT_EQ(worker.run_sync([] { return sched_getcpu(); }), 0);
  }
  spawn(worker.executor(), fail(), worker.completion());
  EXPECT_THROW(worker.join(), std::runtime_error);
}

}  // namespace
}  // namespace arec::async
