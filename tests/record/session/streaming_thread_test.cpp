// streaming_thread: each streaming thread runs with the short slice that keeps it ahead of
// its own io-wq workers.
#include "record/session/streaming_thread.hpp"

#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <cstdio>

namespace arec::record {
namespace {

TEST(StreamingThread, RunsWithTheStreamingSlice) {
  utsname system{};
  int major = 0, minor = 0;
  ASSERT_EQ(::uname(&system), 0);
  ASSERT_EQ(std::sscanf(system.release, "%d.%d", &major, &minor), 2);
  streaming_thread t({.cpus = {0}, .affinity = {}}, 0, streamer_config{}, {});
  EXPECT_EQ(t.slice_error, "");
  auto slice = t.thread.run_sync([] { return async::current_time_slice(); });
  if (major > 6 || (major == 6 && minor >= 12))
    EXPECT_EQ(slice, streaming_slice);
  else
    EXPECT_EQ(slice.count(), 0) << "kernels before 6.12 have no custom slices";
}

}  // namespace
}  // namespace arec::record
