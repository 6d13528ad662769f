#include "async/readiness.hpp"

#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <thread>

#include "async/event_loop.hpp"
#include "io/unique_fd.hpp"

namespace arec::async {
namespace {

using namespace std::chrono_literals;

task<void> await_readable(readiness& ready, event_loop& loop, bool& readable) {
  readable = co_await ready.readable();
  loop.stop();
  co_return;
}

TEST(AsyncReadiness, ResumesWhenTheDescriptorBecomesReadable) {
  io::unique_fd fd{::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
  ASSERT_TRUE(fd);
  event_loop loop;
  readiness ready(loop.get_executor(), fd.get());
  bool readable = false;
  spawn_detached(loop.get_executor(), await_readable(ready, loop, readable));
  std::thread writer([&] {
    std::uint64_t one = 1;
    ASSERT_EQ(::write(fd.get(), &one, sizeof one), 8);
  });
  loop.run();
  writer.join();
  EXPECT_TRUE(readable);
}

TEST(AsyncReadiness, CancelEndsTheWaitFalseAndLeavesTheDescriptorOpen) {
  io::unique_fd fd{::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
  event_loop loop;
  bool readable = true;
  {
    readiness ready(loop.get_executor(), fd.get());
    spawn_detached(loop.get_executor(), await_readable(ready, loop, readable));
    post(loop.get_executor(), [&] { ready.cancel(); });
    loop.run();
  }
  EXPECT_FALSE(readable);
  std::uint64_t one = 1;
  EXPECT_EQ(::write(fd.get(), &one, sizeof one), 8) << "readiness does not own the fd";
}

}  // namespace
}  // namespace arec::async
