// thread_slice: the slice a thread asks for is the one the kernel reports, for it and for the
// threads it starts afterwards; its nice value and non-fair policies are kept.
#include "async/thread_slice.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

namespace arec::async {
namespace {

using namespace std::chrono_literals;

// Custom slices for fair tasks came with Linux 6.12; earlier kernels report none.
bool kernel_takes_slices() {
  utsname system{};
  int major = 0, minor = 0;
  if (::uname(&system) != 0 || std::sscanf(system.release, "%d.%d", &major, &minor) != 2)
    return false;
  return major > 6 || (major == 6 && minor >= 12);
}

std::chrono::microseconds expected(std::chrono::microseconds asked) {
  return kernel_takes_slices() ? asked : 0us;
}

// Runs `fn` on a new thread, so the test's own thread keeps its scheduling.
template <typename Fn>
void on_a_new_thread(Fn fn) {
  std::thread(fn).join();
}

TEST(ThreadSlice, TheKernelReportsTheSliceAsked) {
  on_a_new_thread([] {
    EXPECT_EQ(request_time_slice(500us), "");
    EXPECT_EQ(current_time_slice(), expected(500us));
    EXPECT_EQ(request_time_slice(300us), "");
    EXPECT_EQ(current_time_slice(), expected(300us));
  });
}

// io_uring's io-wq workers are started by the streaming thread after it asked: they inherit.
TEST(ThreadSlice, ThreadsStartedAfterwardsInheritIt) {
  on_a_new_thread([] {
    ASSERT_EQ(request_time_slice(400us), "");
    std::chrono::microseconds child{};
    std::thread([&] { child = current_time_slice(); }).join();
    EXPECT_EQ(child, expected(400us));
  });
}

TEST(ThreadSlice, NiceValueIsKept) {
  on_a_new_thread([] {
    ASSERT_EQ(::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 7), 0);
    EXPECT_EQ(request_time_slice(500us), "");
    EXPECT_EQ(::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())), 7);
  });
}

TEST(ThreadSlice, IdlePolicyIsLeftAlone) {
  on_a_new_thread([] {
    sched_param param{};
    ASSERT_EQ(::sched_setscheduler(0, SCHED_IDLE, &param), 0);
    auto before = current_time_slice();
    EXPECT_EQ(request_time_slice(500us), "");
    EXPECT_EQ(::sched_getscheduler(0), SCHED_IDLE);
    EXPECT_EQ(current_time_slice(), before);
  });
}

}  // namespace
}  // namespace arec::async
