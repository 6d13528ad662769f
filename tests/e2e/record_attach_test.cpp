// Attaching to a running process (-p PID): its samples are recorded for the requested time and
// the process keeps running afterwards.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdio>
#include <sstream>
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
  EXPECT_FALSE(has_warning_besides_lost_chunks(report.run)) << report.run.err;

  if (rec.is_arec()) {
    std::optional<arec_summary> summary = find_arec_summary(run.err);
    ASSERT_TRUE(summary) << "no summary line on stderr:\n" << run.err;
    EXPECT_EQ(summary->samples, sample_records(data)) << run.err;
  }
}

// Starts spin_until_killed for `milliseconds` and waits for its handshake.
test::child_process start_spinner(const std::string& milliseconds) {
  test::child_process spinner =
      test::child_process::spawn({test_program("spin_until_killed"), milliseconds});
  std::optional<std::string> ready = spinner.read_stdout_line(std::chrono::seconds(10));
  EXPECT_EQ(ready.value_or("nothing"), "ready " + std::to_string(spinner.pid()) + "\n");
  return spinner;
}

// The share of `tid`'s samples in hot_function, checked like every attach test does.
void expect_hot_samples_of(const perf_script& script, int tid, const std::string& program) {
  sample_share hot = share_in(script.samples, "hot_function", program,
                              [tid](const script_sample& s) { return s.tid == tid; });
  EXPECT_GE(hot.total, 100u) << "samples of tid " << tid << "; perf script:\n"
                             << excerpt(script.run.out);
  EXPECT_GE(hot.fraction(), 0.90) << hot.matching << " of " << hot.total;
}

// `perf record -p PID -- sleep 1`, the usual "attach for a second": the command only bounds
// the recording. Its events are enabled at once (not at an exec the target never does), the
// command itself is not recorded, and the recording ends when the command does.
TEST(RecordAttach, CommandAfterPidOnlyBoundsTheRecording) {
  if (auto why = missing_prerequisite(perf_scope::other_process)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("bounded.data");
  test::child_process spinner = start_spinner("60000");

  test::command_result run = test::run_command(
      rec.command({"-p", std::to_string(spinner.pid()), "-o", data, "--", "sleep", "1"}), 30s);
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();
  EXPECT_LT(run.elapsed, 20s) << "the recording must end with `sleep 1`, not with the target";
  EXPECT_FALSE(spinner.has_exited());

  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  expect_hot_samples_of(script, spinner.pid(), "spin_until_killed");
  for (const script_sample& sample : script.samples)
    ASSERT_NE(sample.comm, "sleep") << "the bounding command was recorded";
  test::command_result evlist = test::run_command({"perf", "evlist", "-v", "-i", data});
  ASSERT_EQ(evlist.exit_code, 0) << evlist.describe();
  EXPECT_EQ(evlist.out.find("enable_on_exec"), std::string::npos) << evlist.out;
}

// The other way round: the target ends first. The recording ends with it and the command,
// still running, is asked to end (SIGTERM), as perf does.
TEST(RecordAttach, TargetEndingFirstEndsTheRecordingAndTheCommand) {
  if (auto why = missing_prerequisite(perf_scope::other_process)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("target-first.data");
  test::child_process spinner = start_spinner("1500");

  test::command_result run = test::run_command(
      rec.command({"-p", std::to_string(spinner.pid()), "-o", data, "--", "sleep", "60"}), 90s);
  EXPECT_LT(run.elapsed, 30s) << run.describe();
  // arec returns the status a shell shows for the command; perf re-raises its signal.
  EXPECT_TRUE(run.exit_code == 128 + SIGTERM || run.term_signal == SIGTERM) << run.describe();

  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  expect_hot_samples_of(script, spinner.pid(), "spin_until_killed");
}

// perf accepts the id of any thread with -p and records that thread's whole process, until
// that process ends.
TEST(RecordAttach, ThreadIdStandsForItsProcess) {
  if (auto why = missing_prerequisite(perf_scope::other_process)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("by-tid.data");
  test::child_process process =
      test::child_process::spawn({test_program("spin_in_thread"), "2000"});
  std::optional<std::string> ready = process.read_stdout_line(10s);
  ASSERT_TRUE(ready) << "spin_in_thread did not report ready";
  int pid = 0, tid = 0;
  ASSERT_EQ(std::sscanf(ready->c_str(), "ready %d %d", &pid, &tid), 2) << *ready;
  ASSERT_EQ(pid, process.pid());
  ASSERT_NE(tid, pid);

  test::command_result run =
      test::run_command(rec.command({"-p", std::to_string(tid), "-o", data}), 60s);
  ASSERT_FALSE(run.timed_out) << "the recording did not end with the process";
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();

  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  expect_hot_samples_of(script, tid, "spin_in_thread");
  // The samples belong to the process (its pid), not to a process named by the thread id.
  test::command_result ids = test::run_command({"perf", "script", "-i", data, "-F", "pid,tid"});
  ASSERT_EQ(ids.exit_code, 0) << ids.describe();
  const std::string expected = std::to_string(pid) + "/" + std::to_string(tid);
  std::istringstream lines(ids.out);
  std::size_t of_thread = 0;
  for (std::string line; std::getline(lines, line);)
    if (line.find(expected) != std::string::npos) ++of_thread;
  EXPECT_GE(of_thread, 100u) << "no samples as " << expected << ":\n" << excerpt(ids.out);
}

// -t records the threads named, not their process: naming the main thread of a process whose
// other thread does the work records none of that work (-p would).
TEST(RecordAttach, TidRecordsOnlyTheThreadsNamed) {
  if (auto why = missing_prerequisite(perf_scope::other_process)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  for (bool name_the_spinner : {true, false}) {
    SCOPED_TRACE(name_the_spinner ? "-t spinning thread" : "-t main thread");
    test::temp_dir dir;
    const std::string data = dir.file("tid.data");
    test::child_process process =
        test::child_process::spawn({test_program("spin_in_thread"), "1500"});
    std::optional<std::string> ready = process.read_stdout_line(10s);
    ASSERT_TRUE(ready) << "spin_in_thread did not report ready";
    int pid = 0, tid = 0;
    ASSERT_EQ(std::sscanf(ready->c_str(), "ready %d %d", &pid, &tid), 2) << *ready;
    int named = name_the_spinner ? tid : pid;
    test::command_result run = test::run_command(
        rec.command({"-e", "cpu-clock", "-t", std::to_string(named), "-o", data}), 60s);
    ASSERT_FALSE(run.timed_out) << "the recording did not end with the process";
    ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();
    // The spin's samples only: tasks the named thread starts are recorded too (inherit), such
    // as the leak checker's at the exit of a sanitizer build.
    test::command_result ids =
        test::run_command({"perf", "script", "-i", data, "-F", "tid,ip,sym"});
    ASSERT_EQ(ids.exit_code, 0) << ids.describe();
    std::istringstream lines(ids.out);
    std::size_t of_named = 0, of_others = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.find("hot_function") == std::string::npos) continue;
      (std::stoi(line) == named ? of_named : of_others)++;
    }
    EXPECT_EQ(of_others, 0u) << excerpt(ids.out);
    if (name_the_spinner) {
      EXPECT_GE(of_named, 100u) << excerpt(ids.out);
    }
  }
}

TEST(RecordAttach, MissingTidIsAUsageError) {
  recorder rec = recorder::from_environment();
  if (!rec.is_arec()) GTEST_SKIP() << "arec's message";
  test::command_result run = test::run_command(rec.command({"-t", "999999999", "--", "true"}));
  EXPECT_EQ(run.exit_code, 2) << run.describe();
  EXPECT_EQ(run.err, "arec: error: -t: tid 999999999 does not exist\n");
}

}  // namespace
}  // namespace arec::e2e
