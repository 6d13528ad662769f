// The process runner the end-to-end tests rely on: output capture, exit status, signals and
// deadlines, checked with /bin/sh.
#include "support/child_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

TEST(ChildProcess, CapturesOutputAndExitStatus) {
  test::command_result result = test::run_command({"sh", "-c", "echo out; echo err >&2; exit 7"});
  EXPECT_EQ(result.exit_code, 7);
  EXPECT_EQ(result.term_signal, 0);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.out, "out\n");
  EXPECT_EQ(result.err, "err\n");
}

TEST(ChildProcess, ReportsDeathBySignal) {
  test::command_result result = test::run_command({"sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(result.exit_code, -1);
  EXPECT_EQ(result.term_signal, SIGTERM);
}

TEST(ChildProcess, KillsCommandsPastTheirDeadline) {
  test::command_result result = test::run_command({"sleep", "30"}, 200ms);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.term_signal, SIGKILL);
  EXPECT_LT(result.elapsed, 5s);
}

TEST(ChildProcess, DoesNotWaitForGrandchildrenHoldingItsPipes) {
  // The shell exits at once; its background sleep keeps stdout open but must not delay us.
  test::command_result result = test::run_command({"sh", "-c", "sleep 30 & echo started"}, 20s);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "started\n");
  EXPECT_LT(result.elapsed, 5s);
}

TEST(ChildProcess, ReadsLinesWhileRunningAndDeliversSignals) {
  test::child_process child =
      test::child_process::spawn({"sh", "-c",
                                  "trap 'echo got-int; exit 0' INT; echo ready; "
                                  "while :; do sleep 0.05; done"});
  EXPECT_EQ(child.read_stdout_line(10s), "ready\n");
  EXPECT_FALSE(child.has_exited());
  child.send_signal(SIGINT);
  test::command_result result = child.wait(10s);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "ready\ngot-int\n");
}

TEST(ChildProcess, MissingProgramIsAnError) {
  EXPECT_THROW(test::child_process::spawn({"/nonexistent/arec-e2e-program"}), std::system_error);
}

}  // namespace
}  // namespace arec::e2e
