// The workload held before its exec: released by start(), reaped by wait(), and a child that
// died before its release (a Ctrl-C to the whole process group) never takes arec with it.
#include "record/session/workload.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <string>
#include <vector>

#include "host/stop_signals.hpp"
#include "support/forked.hpp"

namespace arec::record {
namespace {

using namespace std::chrono_literals;

TEST(Workload, StartReleasesTheChildAndWaitReturnsItsExitCode) {
  std::vector<std::string> argv{"sh", "-c", "exit 7"};
  workload child = workload::prepare(argv);
  child.start();
  EXPECT_EQ(child.wait(), 7);
}

TEST(Workload, AHeldChildDoesNotRunUntilStarted) {
  std::vector<std::string> argv{"true"};
  workload child = workload::prepare(argv);
  EXPECT_FALSE(child.exits_within(50ms)) << "it ran before start()";
  child.start();
  EXPECT_EQ(child.wait(), 0);
}

TEST(Workload, ACommandNotFoundIsRefusedBeforeAnythingForks) {
  std::vector<std::string> argv{"arec-no-such-command"};
  try {
    workload::prepare(argv);
    FAIL() << "no error";
  } catch (const workload_error& error) {
    EXPECT_STREQ(error.what(), "cannot run 'arec-no-such-command': No such file or directory");
  }
}

// The race CI found: the group's SIGINT ends the held child, then arec releases it. In a
// forked child, with SIGPIPE ignored as a recording has it, so that a SIGPIPE the fix missed
// ends that child and not the test program.
TEST(Workload, StartingAChildThatAlreadyDiedIsNotABrokenPipe) {
  test::forked_result result = test::run_forked([](std::string& report) {
    host::stop_signals::ignore_broken_pipe();
    std::vector<std::string> argv{"true"};
    workload child = workload::prepare(argv);
    ::kill(child.pid(), SIGINT);
    if (!child.exits_within(10s)) {
      report = "the held child did not die of SIGINT";
      return 1;
    }
    child.start();
    int status = child.wait();
    report = "wait() returned " + std::to_string(status);
    return status == 128 + SIGINT ? 0 : 1;
  });
  EXPECT_EQ(result.status, 0) << result.text;
}

}  // namespace
}  // namespace arec::record
