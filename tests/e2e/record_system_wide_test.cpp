// Recording all CPUs (-a) while a workload runs: the workload's samples are found among every
// other task's, attributed to its comm and its hot function.
#include <gtest/gtest.h>

#include "arec_summary.hpp"
#include "perf_report.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

TEST(RecordSystemWide, FindsHotLoopSamplesAmongAllTasks) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("system-wide.data");

  test::command_result run = test::run_command(
      rec.command({"-a", "-o", data, "-F", "1000", "--", test_program("hot_loop"), "1000"}));
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();

  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  sample_share hot = share_in(script.samples, "hot_function", "hot_loop",
                              [](const script_sample& s) { return s.comm == "hot_loop"; });
  ASSERT_GE(hot.total, 100u) << "hot_loop samples; perf script:\n" << excerpt(script.run.out);
  EXPECT_GE(hot.fraction(), 0.90) << hot.matching << " of " << hot.total
                                  << " hot_loop samples in hot_function";
  // Other tasks were recorded too (at least the recorder's own workload start-up, idle CPUs).
  const std::size_t samples = sample_records(data);
  EXPECT_GT(samples, hot.total);

  perf_report report = run_perf_report(data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  EXPECT_FALSE(has_warning_besides_lost_chunks(report.run)) << report.run.err;
  EXPECT_FALSE(report.rows.empty()) << report.run.out;

  if (rec.is_arec()) {
    std::optional<arec_summary> summary = find_arec_summary(run.err);
    ASSERT_TRUE(summary) << "no summary line on stderr:\n" << run.err;
    // Counted by perf report --stats: perf script's lines split where another task's name holds a
    // newline, and any process may run beside this test.
    EXPECT_EQ(summary->samples, samples) << run.err;
  }
}

// The kernel MMAP as `perf script --show-mmap-events` prints it: "[start(len) @ pgoff]: x name".
std::string kernel_mmap_of(const std::string& data) {
  test::command_result script =
      test::run_command({"perf", "script", "-i", data, "--show-mmap-events", "-F", "comm"});
  EXPECT_EQ(script.exit_code, 0) << script.describe();
  std::string_view out = script.out;
  auto name = out.find("[kernel.kallsyms]");
  if (name == std::string_view::npos) return "no kernel MMAP in:\n" + std::string{excerpt(out)};
  auto line_start = out.rfind('\n', name) + 1;  // npos + 1 is 0
  auto map = out.find(": [", line_start);
  return std::string{out.substr(map, out.find('\n', name) - map)};
}

// arec finds _etext elsewhere than perf (iomem instead of kallsyms on x86): same map.
TEST(RecordSystemWide, KernelMapIsTheOnePerfRecordWrites) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string ours = dir.file("ours.data"), perfs = dir.file("perf.data");
  test::command_result run =
      test::run_command(rec.command({"-a", "-o", ours, "-F", "100", "--", "true"}));
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();
  run = test::run_command({"perf", "record", "-a", "-o", perfs, "-F", "100", "--", "true"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::string perf_map = kernel_mmap_of(perfs);
  ASSERT_TRUE(perf_map.starts_with(": [0x")) << perf_map;
  EXPECT_EQ(kernel_mmap_of(ours), perf_map);
}

}  // namespace
}  // namespace arec::e2e
