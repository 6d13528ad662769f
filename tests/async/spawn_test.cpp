#include "async/spawn.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "async/event_loop.hpp"

namespace arec::async {
namespace {

using namespace std::chrono_literals;

task<void> fail() {
  throw std::runtime_error("failed on purpose");
  co_return;
}

TEST(AsyncSpawn, CompletionReceivesTheExceptionACoroutineEndedWith) {
  event_loop loop;
  std::string seen;
  spawn(loop.get_executor(), fail(), [&](std::exception_ptr failure) {
    try {
      if (failure) std::rethrow_exception(failure);
    } catch (const std::exception& error) {
      seen = error.what();
    }
    loop.stop();
  });
  loop.run();
  EXPECT_EQ(seen, "failed on purpose");
}

}  // namespace
}  // namespace arec::async
