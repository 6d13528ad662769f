// Streaming threads (--threads) in real recordings: one data file per thread, each thread pinned
// where its layout says, and a directory perf reads back with every sample arec counted.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "arec_summary.hpp"
#include "host/cpu_list.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "recording_check.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "thread_summary.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// "thread N: cpus=L affinity=L" for each per-thread line, as --dry-run prints them.
std::string layout_of(const std::vector<thread_summary>& threads) {
  std::string text;
  for (const thread_summary& t : threads)
    text += "thread " + std::to_string(t.index) + ": cpus=" + host::format_cpu_list(t.cpus) +
            " affinity=" + host::format_cpu_list(t.affinity) + "\n";
  return text;
}

// Records `-a` with --threads=SPEC while hot_loop runs, checks everything a threaded recording
// must satisfy and that the threads are the ones --dry-run announces; returns the threads.
std::vector<thread_summary> record_with_threads(const std::string& spec) {
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string out = dir.file("threads.data");

  test::command_result dry =
      test::run_command(rec.command({"--dry-run", "--threads=" + spec, "-a"}), 30s);
  EXPECT_EQ(dry.exit_code, 0) << dry.describe();

  test::command_result run =
      test::run_command(rec.command({"--threads=" + spec, "-a", "-o", out, "-F", "1000", "--",
                                     test_program("hot_loop"), "500"}),
                        60s);
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  if (run.exit_code != 0) return {};
  threaded_recording recording = check_threaded_recording(out, run);
  if (::testing::Test::HasFailure()) return {};

  EXPECT_EQ(layout_of(recording.threads), dry.out)
      << "the recording's threads differ from --dry-run";
  std::vector<int> drained;
  for (const thread_summary& t : recording.threads) {
    EXPECT_TRUE(std::includes(t.affinity.begin(), t.affinity.end(), t.cpus.begin(), t.cpus.end()))
        << "a topology thread runs on its own unit: " << run.err;
    drained.insert(drained.end(), t.cpus.begin(), t.cpus.end());
  }
  std::sort(drained.begin(), drained.end());
  EXPECT_EQ(drained, online_cpus()) << "-a drains every online cpu: " << run.err;

  std::size_t hot_loop_samples =
      std::count_if(recording.script.samples.begin(), recording.script.samples.end(),
                    [](const script_sample& s) { return s.comm == "hot_loop"; });
  EXPECT_GT(hot_loop_samples, 0u) << "perf script:\n" << excerpt(recording.script.run.out);
  return recording.threads;
}

TEST(RecordThreads, PerCpuThreadsWriteOneDataFileEach) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  if (!recorder::from_environment().is_arec()) GTEST_SKIP() << "arec's summary lines";
  std::vector<thread_summary> threads = record_with_threads("cpu");
  if (HasFatalFailure() || HasFailure()) return;
  EXPECT_EQ(threads.size(), online_cpus().size());
  for (const thread_summary& t : threads) {
    EXPECT_EQ(t.cpus.size(), 1u);
    EXPECT_EQ(t.affinity, t.cpus) << "a per-cpu thread is pinned to its cpu";
  }
}

TEST(RecordThreads, PerCoreThreadsWriteOneDataFileEach) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  if (!recorder::from_environment().is_arec()) GTEST_SKIP() << "arec's summary lines";
  std::vector<thread_summary> threads = record_with_threads("core");
  if (HasFailure()) return;
  EXPECT_GE(threads.size(), 1u);
  for (const thread_summary& t : threads) EXPECT_EQ(t.affinity, t.cpus) << "a core drains itself";
}

// Without --threads, -v shows the single streaming thread: every monitored cpu, the whole
// machine as affinity, and all the samples.
TEST(RecordThreads, VerboseShowsTheSingleStreamingThread) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  if (!rec.is_arec()) GTEST_SKIP() << "arec's summary lines";
  test::temp_dir dir;
  const std::string out = dir.file("verbose.data");
  test::command_result run = test::run_command(
      rec.command({"-v", "-o", out, "-F", "1000", "--", test_program("hot_loop"), "300"}), 60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::optional<arec_summary> summary = find_arec_summary(run.err);
  ASSERT_TRUE(summary) << run.err;
  std::vector<thread_summary> threads;
  ASSERT_NO_THROW(threads = find_thread_summaries(run.err));
  ASSERT_EQ(threads.size(), 1u) << run.err;
  EXPECT_EQ(threads[0].cpus, online_cpus());
  EXPECT_EQ(threads[0].affinity, online_cpus());
  EXPECT_FALSE(threads[0].ran_on.empty());
  EXPECT_EQ(threads[0].samples, summary->samples);
  struct stat info {};
  ASSERT_EQ(::stat(out.c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode)) << "without --threads the output is one file";
}

// A streaming thread whose rings stay empty (the attached process sleeps throughout) still ran
// its start-up and final drain: its line says where, within its affinity.
TEST(RecordThreads, IdleThreadsStillReportWhereTheyRan) {
  if (auto why = missing_prerequisite(perf_scope::other_process)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  if (!rec.is_arec()) GTEST_SKIP() << "arec's summary lines";
  test::child_process sleeper = test::child_process::spawn({"sleep", "30"});
  test::temp_dir dir;
  const std::string out = dir.file("idle.data");

  test::command_result run =
      test::run_command(rec.command({"--threads=cpu", "-p", std::to_string(sleeper.pid()), "-o",
                                     out, "--duration", "0.3"}),
                        30s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::optional<arec_summary> summary = find_arec_summary(run.err);
  ASSERT_TRUE(summary) << run.err;
  EXPECT_EQ(summary->samples, 0u) << "a sleeping process is never sampled";
  std::vector<thread_summary> threads;
  ASSERT_NO_THROW(threads = find_thread_summaries(run.err));
  ASSERT_EQ(threads.size(), online_cpus().size()) << run.err;
  for (const thread_summary& t : threads) {
    SCOPED_TRACE("thread " + std::to_string(t.index));
    EXPECT_EQ(t.samples, 0u);
    EXPECT_FALSE(t.ran_on.empty()) << "a thread that ran must say where:\n" << run.err;
    EXPECT_TRUE(
        std::includes(t.affinity.begin(), t.affinity.end(), t.ran_on.begin(), t.ran_on.end()))
        << run.err;
  }
}

// A user mask that leaves some monitored cpus to no thread (`--threads=0/0 -a` on a machine
// with more cpus). perf records the covered cpus; arec may do the same or refuse the spec as a
// usage error, but it must not fail half-way with a system error and a partial directory.
TEST(RecordThreads, UserMaskCoveringSomeCpusRecordsThemOrIsRejected) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  if (!rec.is_arec()) GTEST_SKIP() << "arec's summary lines";
  std::vector<int> online = online_cpus();
  if (online.size() < 2) GTEST_SKIP() << "needs two online cpus, this machine has one";
  const std::string first = std::to_string(online.front());
  const std::string spec = "--threads=" + first + "/" + first;
  test::temp_dir dir;
  const std::string out = dir.file("mask.data");

  test::command_result dry = test::run_command(rec.command({"--dry-run", spec, "-a"}), 30s);
  test::command_result run = test::run_command(
      rec.command({spec, "-a", "-o", out, "-F", "1000", "--", test_program("hot_loop"), "300"}),
      60s);
  if (run.exit_code == 2) {
    EXPECT_TRUE(run.err.starts_with("arec: error: ")) << run.err;
    EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
    struct stat info;
    EXPECT_NE(::lstat(out.c_str(), &info), 0) << "a rejected spec must not create " << out;
    EXPECT_EQ(dry.exit_code, 2) << "--dry-run must reject what the recording rejects: "
                                << dry.describe();
    return;
  }
  ASSERT_EQ(run.exit_code, 0) << "expected a recording (exit 0) or a usage error (exit 2): "
                              << run.describe();
  EXPECT_EQ(dry.exit_code, 0) << dry.describe();
  threaded_recording recording = check_threaded_recording(out, run);
  if (HasFailure()) return;
  ASSERT_EQ(recording.threads.size(), 1u) << run.err;
  EXPECT_EQ(recording.threads[0].cpus, std::vector<int>{online.front()});
}

}  // namespace
}  // namespace arec::e2e
