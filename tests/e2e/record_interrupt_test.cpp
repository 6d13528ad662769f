// Ctrl-C (SIGINT) ends a system-wide recording early: the recorder stops promptly and leaves
// a complete file behind.
#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

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

TEST(RecordInterrupt, SigintEndsRecordingWithCompleteFile) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("interrupt.data");

  // The recording lasts far longer than the wait below: only the SIGINT can end it in time.
  std::vector<std::string> args{"-a", "-o", data};
  if (rec.is_arec()) args.push_back("-v");
  for (std::string& arg : rec.duration_args("300")) args.push_back(std::move(arg));
  test::child_process recording = test::child_process::spawn(rec.command(args));
  if (rec.is_arec()) {
    ASSERT_TRUE(wait_for_samples_on_disk(recording, 0)) << recording.stderr_so_far();
  } else {
    // perf says nothing once it records (a manual comparison; CI runs arec): a second after
    // its header is as close as the test can get.
    ASSERT_TRUE(wait_until_written(data, 60s)) << rec.describe() << " wrote no header";
    std::this_thread::sleep_for(1s);
  }
  ASSERT_FALSE(recording.has_exited()) << "a 300 s recording ended at once";
  recording.send_signal(SIGINT);
  test::command_result run = recording.wait(60s);

  ASSERT_FALSE(run.timed_out) << rec.describe() << " ignored SIGINT: " << run.describe();
  if (rec.is_arec()) {
    EXPECT_EQ(run.exit_code, 0) << run.describe();
  } else {
    // perf record stops its `sleep` workload with SIGTERM and, once the file is complete,
    // re-raises the signal the workload died of (a shell shows 143).
    EXPECT_EQ(run.term_signal, SIGTERM) << run.describe();
  }

  perf_report report = run_perf_report(data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  EXPECT_FALSE(has_warning_besides_lost_chunks(report.run)) << report.run.err;
  EXPECT_FALSE(report.rows.empty()) << report.run.out;

  if (rec.is_arec()) {
    perf_script script = run_perf_script(data);
    ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
    std::optional<arec_summary> summary = find_arec_summary(run.err);
    ASSERT_TRUE(summary) << "no summary line on stderr:\n" << run.err;
    EXPECT_EQ(summary->samples, sample_records(data)) << run.err;
  }
}

}  // namespace
}  // namespace arec::e2e
