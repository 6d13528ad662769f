// Tracepoint events (-e sched:sched_switch): the raw tracepoint data is recorded together with
// its format, so perf script prints the decoded fields.
#include <gtest/gtest.h>

#include <sstream>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

TEST(RecordTracepoint, SchedSwitchSamplesDecodeWithFields) {
  if (auto why = missing_prerequisite(perf_scope::tracepoint)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("tracepoint.data");

  test::command_result run = test::run_command(
      rec.command({"-e", "sched:sched_switch", "-a", "-o", data, "--", "sleep", "0.5"}));
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();

  test::command_result script = test::run_command({"perf", "script", "-i", data});
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  std::size_t switches = 0;
  std::size_t decoded = 0;
  bool sleep_switched_out = false;
  std::istringstream lines(script.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("sched:sched_switch:") == std::string::npos) continue;
    ++switches;
    if (line.find("prev_comm=") != std::string::npos &&
        line.find("next_comm=") != std::string::npos) {
      ++decoded;
    }
    // The workload blocks in nanosleep, so the kernel switches away from it at least once.
    if (line.find("prev_comm=sleep ") != std::string::npos) sleep_switched_out = true;
  }
  ASSERT_GT(switches, 0u) << "perf script:\n" << script.out.substr(0, 3000);
  EXPECT_EQ(decoded, switches) << "perf script:\n" << script.out.substr(0, 3000);
  EXPECT_TRUE(sleep_switched_out) << "perf script:\n" << script.out.substr(0, 3000);
}

}  // namespace
}  // namespace arec::e2e
