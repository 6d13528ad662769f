// The recorder's exit status is its workload's, so scripts can wrap a command in a recording.
#include <gtest/gtest.h>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

TEST(RecordExitStatus, ReturnsWorkloadExitStatus) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;

  test::command_result failing =
      test::run_command(rec.command({"-o", dir.file("exit3.data"), "--", "sh", "-c", "exit 3"}));
  EXPECT_EQ(failing.exit_code, 3) << rec.describe() << ": " << failing.describe();

  test::command_result succeeding =
      test::run_command(rec.command({"-o", dir.file("exit0.data"), "--", "sh", "-c", "exit 0"}));
  EXPECT_EQ(succeeding.exit_code, 0) << rec.describe() << ": " << succeeding.describe();
}

}  // namespace
}  // namespace arec::e2e
