// Attaching to a running process (-p PID): its samples are recorded for the requested time and
// the process keeps running afterwards.
#include <gtest/gtest.h>

#include <string>

#include "arec_summary.hpp"
#include "perf_report.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

TEST(RecordAttach, SamplesRunningProcessAndLeavesItRunning) {
  if (auto why = missing_prerequisite(perf_scope::other_process)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("attach.data");

  test::child_process spinner =
      test::child_process::spawn({test_program("spin_until_killed"), "60000"});
  std::optional<std::string> ready = spinner.read_stdout_line(10s);
  ASSERT_TRUE(ready) << "spin_until_killed did not report ready";
  ASSERT_EQ(*ready, "ready " + std::to_string(spinner.pid()) + "\n");

  std::vector<std::string> args{"-p", std::to_string(spinner.pid()), "-o", data};
  for (std::string& arg : rec.duration_args("1")) args.push_back(std::move(arg));
  test::command_result run = test::run_command(rec.command(args), 30s);
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();
  EXPECT_LT(run.elapsed, 10s) << "a 1 s recording";
  EXPECT_FALSE(spinner.has_exited()) << "the recorder must detach, not end the process";

  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  const int pid = spinner.pid();
  sample_share hot = share_in(script.samples, "hot_function", "spin_until_killed",
                              [pid](const script_sample& s) { return s.tid == pid; });
  ASSERT_GE(hot.total, 100u) << "samples of pid " << pid << "; perf script:\n"
                             << excerpt(script.run.out);
  EXPECT_GE(hot.fraction(), 0.90) << hot.matching << " of " << hot.total
                                  << " samples in hot_function; perf script:\n"
                                  << excerpt(script.run.out);

  perf_report report = run_perf_report(data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  EXPECT_FALSE(has_warning(report.run)) << report.run.err;

  if (rec.is_arec()) {
    std::optional<arec_summary> summary = find_arec_summary(run.err);
    ASSERT_TRUE(summary) << "no summary line on stderr:\n" << run.err;
    EXPECT_EQ(summary->samples, script.samples.size()) << run.err;
  }
}

}  // namespace
}  // namespace arec::e2e
