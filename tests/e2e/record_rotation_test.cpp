// Output rotation (--switch-output, --switch-max-files, --timestamp-filename) and --max-size:
// every file perf reads on its own, the samples split between the files with none lost or
// repeated, and the names are perf's PATH.YYYYmmddHHMMSScc.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "arec_summary.hpp"
#include "perf_report.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "rotated_outputs.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// Each sample's thread and time (ns), and with -a its cpu (idle tasks share tid 0): what would
// repeat if a record went to two files.
std::vector<std::string> sample_times(const std::string& data, bool system_wide) {
  test::command_result run = test::run_command(
      {"perf", "script", "-i", data, "-F", system_wide ? "tid,cpu,time" : "tid,time", "--ns"},
      120s);
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::string> times;
  std::size_t start = 0;
  while (start < run.out.size()) {
    std::size_t end = run.out.find('\n', start);
    if (end == std::string::npos) end = run.out.size();
    if (end > start) times.push_back(run.out.substr(start, end - start));
    start = end + 1;
  }
  return times;
}

class RecordRotation : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  }
  test::command_result record(std::vector<std::string> args, const std::string& workload_ms) {
    args.insert(args.begin(), {"-e", "cpu-clock", "-F", "4000", "-o", data_});
    args.insert(args.end(), {"--", test_program("hot_loop"), workload_ms});
    return test::run_command(rec_.command(args), 120s);
  }
  // Every file whole on its own, each sample in exactly one of them, all counted in arec's
  // summary.
  void expect_split_without_loss(const std::vector<std::string>& files,
                                 const test::command_result& run,
                                 const std::string& program = "hot_loop",
                                 bool system_wide = false) {
    std::size_t samples = 0;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const std::string& file = files[i];
      // How many files a size limit makes depends on what else runs (a busy host's side band
      // fills 100 KB many times a second): every file is counted and its samples' times read
      // (perf reads it whole for both), the full check with symbols runs on at most ten spread
      // over the recording, the first and last among them.
      if (files.size() <= 10 || i % (files.size() / 8) == 0 || i + 1 == files.size())
        samples += expect_readable_alone(file, program);
      else
        samples += sample_records(file);
      for (const std::string& time : sample_times(file, system_wide))
        EXPECT_TRUE(seen.insert(time).second) << time << " appears twice, again in " << file;
    }
    if (!rec_.is_arec()) return;
    std::optional<arec_summary> summary = find_arec_summary(run.err);
    ASSERT_TRUE(summary) << run.err;
    EXPECT_EQ(summary->samples, samples) << run.err;
  }

  // `switches` SIGUSR2s, each waited for, then SIGINT: one file per signal and the last one.
  void expect_one_switch_per_sigusr2(std::vector<std::string> args, std::size_t switches) {
    args.insert(args.begin(), {"-v", "-e", "cpu-clock", "--switch-output", "-o", data_});
    args.insert(args.end(), {"--", test_program("hot_loop"), "60000"});
    test::child_process recording = test::child_process::spawn(rec_.command(args));
    ASSERT_TRUE(recording.wait_for_stderr("arec: recording started\n", 60s));
    for (std::size_t n = 1; n <= switches; ++n) {
      recording.send_signal(SIGUSR2);
      ASSERT_TRUE(wait_for_rotated_outputs(n));
    }
    recording.send_signal(SIGINT);
    test::command_result run = recording.wait(60s);
    EXPECT_EQ(run.term_signal, 0) << run.describe();
    std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
    EXPECT_EQ(files.size(), switches + 1) << run.err;
    expect_split_without_loss(files, run);
  }

  // Polls for the n-th rotated file; the deadline only bounds a bug.
  bool wait_for_rotated_outputs(std::size_t n) {
    auto deadline = std::chrono::steady_clock::now() + 60s;
    while (rotated_outputs(dir_.path(), base_).size() < n &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(10ms);
    return rotated_outputs(dir_.path(), base_).size() >= n;
  }

  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
  const std::string base_ = "rot.data";
  const std::string data_ = dir_.file(base_);
};

TEST_F(RecordRotation, SizeSwitchesSplitEverySampleIntoCompleteFiles) {
  test::command_result run = record({"--switch-output=20K"}, "1500");
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  EXPECT_GE(files.size(), 2u) << run.err;
  // --switch-output implies --timestamp-filename: the final file is named too.
  EXPECT_NE(::access(data_.c_str(), F_OK), 0) << data_ << " stayed without a timestamp";
  expect_split_without_loss(files, run);
  if (rec_.is_arec()) {
    EXPECT_NE(run.err.find("arec: dump " + files.back() + "\n"), std::string::npos) << run.err;
  }
}

TEST_F(RecordRotation, SystemWideFilesAreCompleteToo) {
  test::command_result run = record({"-a", "--switch-output=100K"}, "1500");
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  EXPECT_GE(files.size(), 2u) << run.err;
  expect_split_without_loss(files, run, "hot_loop", true);
}

TEST_F(RecordRotation, AttachedProcessFilesAreCompleteToo) {
  test::child_process spinner =
      test::child_process::spawn({test_program("spin_until_killed"), "1500"});
  std::optional<std::string> ready = spinner.read_stdout_line(10s);
  ASSERT_TRUE(ready) << "spin_until_killed did not report ready";
  // -p ends the recording when the process exits.
  test::command_result run = test::run_command(
      rec_.command({"-e", "cpu-clock", "-F", "4000", "-p", std::to_string(spinner.pid()),
                    "--switch-output=20K", "-o", data_}),
      120s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  EXPECT_GE(files.size(), 2u) << run.err;
  expect_split_without_loss(files, run, "spin_until_killed");
}

TEST_F(RecordRotation, CompressedFilesEachDecodeOnTheirOwn) {
  test::command_result run = record({"-z", "--switch-output=4K"}, "1500");
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  EXPECT_GE(files.size(), 2u) << run.err;
  expect_split_without_loss(files, run);
}

TEST_F(RecordRotation, TimeSwitchesRotate) {
  test::command_result run = record({"--switch-output=1s"}, "2500");
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  EXPECT_GE(files.size(), 2u) << run.err;
  expect_split_without_loss(files, run);
}

TEST_F(RecordRotation, MaxFilesKeepsTheNewest) {
  test::command_result run = record({"--switch-output=10K", "--switch-max-files=2"}, "1500");
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  EXPECT_EQ(files.size(), 2u) << run.err;
  for (const std::string& file : files) expect_readable_alone(file);
  if (!rec_.is_arec()) return;
  // More were written than kept: the last two named are the ones left.
  std::size_t dumps = 0;
  for (std::size_t at = run.err.find("arec: dump "); at != std::string::npos;
       at = run.err.find("arec: dump ", at + 1))
    ++dumps;
  EXPECT_GT(dumps, 2u) << run.err;
  ASSERT_EQ(files.size(), 2u);
  EXPECT_LT(run.err.find("arec: dump " + files[0]), run.err.find("arec: dump " + files[1]));
}

TEST_F(RecordRotation, TimestampFilenameNamesTheOnlyFile) {
  test::command_result run = record({"--timestamp-filename"}, "300");
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  ASSERT_EQ(files.size(), 1u) << run.err;
  EXPECT_NE(::access(data_.c_str(), F_OK), 0);
  expect_readable_alone(files.front());
}

TEST_F(RecordRotation, MaxSizeStopsWithACompleteFileNearTheSize) {
  constexpr off_t limit = 64 * 1024;
  // The workload would run a minute: the size ends the recording long before.
  test::command_result run = record({"--max-size=64K"}, "60000");
  // arec exits with the workload's status (ended by SIGTERM), as when --duration ends a
  // recording; perf 6.1 dies of the SIGTERM it sent its workload.
  if (rec_.is_arec())
    EXPECT_EQ(run.exit_code, 128 + SIGTERM) << run.describe();
  else
    EXPECT_EQ(run.term_signal, SIGTERM) << run.describe();
  struct stat st {};
  ASSERT_EQ(::stat(data_.c_str(), &st), 0) << run.err;
  EXPECT_GE(st.st_size, limit);
  // At most what the rings held beyond the limit, plus the features.
  EXPECT_LT(st.st_size, limit + 4 * 1024 * 1024);
  expect_readable_alone(data_);
  if (rec_.is_arec()) {
    EXPECT_NE(run.err.find("arec: size limit reached ("), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(" KB), stopping the recording\n"), std::string::npos) << run.err;
  }
}

// With --threads the limit is the whole directory's: every data.N counts.
TEST_F(RecordRotation, MaxSizeCountsEveryFileOfADirectory) {
  if (!rec_.is_arec()) GTEST_SKIP() << "perf 6.1 has no --max-size with --threads";
  constexpr std::uintmax_t limit = 64 * 1024;
  test::command_result run = record({"-a", "--threads=cpu", "--max-size=64K"}, "60000");
  EXPECT_EQ(run.exit_code, 128 + SIGTERM) << run.describe();
  std::uintmax_t bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data_))
    bytes += std::filesystem::file_size(entry.path());
  EXPECT_GE(bytes, limit);
  EXPECT_LT(bytes, limit + 4 * 1024 * 1024);
  expect_readable_alone(data_);
  EXPECT_NE(run.err.find("arec: size limit reached ("), std::string::npos) << run.err;
}

// Signal mode: each SIGUSR2 makes one more file; the test waits for each to appear.
TEST_F(RecordRotation, EverySigusr2SwitchesOnce) {
  if (!rec_.is_arec()) GTEST_SKIP() << "perf dies of a SIGUSR2 sent before it is ready";
  expect_one_switch_per_sigusr2({}, 3);
}

// kill -9 at spread moments after a switch was asked for: every file left is read by perf
// report as it is, or, for the one being finished or written, by arec convert --salvage. With
// --threads the new directory may also be left empty (killed right after its mkdir): convert
// says so, and nothing was recorded there.
class RecordRotationKill : public RecordRotation, public ::testing::WithParamInterface<bool> {};

TEST_P(RecordRotationKill, DuringASwitchLeavesEveryFileReadableOrSalvageable) {
  if (!rec_.is_arec()) GTEST_SKIP() << "arec's rotation and salvage";
  const bool threads = GetParam();
  constexpr int tries = 12;
  for (int attempt = 0; attempt < tries && !HasFailure(); ++attempt) {
    SCOPED_TRACE("try " + std::to_string(attempt));
    test::temp_dir dir;
    const std::string data = dir.file(base_);
    std::vector<std::string> args = {"-v", "-e", "cpu-clock", "--switch-output", "-o", data};
    if (threads) args.push_back("--threads=cpu");
    args.insert(args.end(), {"--", test_program("hot_loop"), "60000"});
    test::child_process recording = test::child_process::spawn(rec_.command(args));
    ASSERT_TRUE(recording.wait_for_stderr("arec: recording started\n", 60s));
    recording.send_signal(SIGUSR2);
    // From at once to well after the switch: 0 to 22 ms.
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * attempt));
    recording.send_signal(SIGKILL);
    test::command_result run = recording.wait(60s);
    ASSERT_EQ(run.term_signal, SIGKILL) << run.describe();
    std::vector<std::string> files = rotated_outputs(dir.path(), base_);
    if (::access(data.c_str(), F_OK) == 0) files.push_back(data);
    ASSERT_FALSE(files.empty());
    for (const std::string& file : files) {
      test::command_result report =
          test::run_command({"perf", "report", "--stdio", "-i", file}, 120s);
      if (report.exit_code == 0) continue;
      test::command_result salvage = test::run_command(
          {arec_binary(), "convert", "-q", "--salvage", "-i", file, "-o", file + ".salvaged"},
          120s);
      if (threads && std::filesystem::is_directory(file) && std::filesystem::is_empty(file)) {
        EXPECT_NE(salvage.err.find("an empty data directory"), std::string::npos)
            << salvage.describe();
        continue;
      }
      EXPECT_EQ(salvage.exit_code, 0) << file << " is neither readable nor salvageable:\n"
                                      << report.describe() << "\n"
                                      << salvage.describe();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Outputs, RecordRotationKill, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Directory" : "SingleFile";
                         });

// perf's warning when files will overshoot SIZE: a ring is drained only when it wakes the drain
// (half its size by default), so a file can take that much beyond SIZE.
TEST_F(RecordRotation, WarnsWhenSizeIsBelowTheWakeupSize) {
  const std::string warning = "switch-output data size lower than wakeup kernel buffer size (";
  test::command_result small = test::run_command(
      rec_.command({"-e", "cpu-clock", "-m", "16", "--switch-output=20K", "-o", data_, "--",
                    "true"}),
      60s);
  EXPECT_EQ(small.exit_code, 0) << small.describe();
  EXPECT_NE(small.err.find(warning), std::string::npos) << small.err;
  EXPECT_NE(small.err.find(") expect bigger perf.data sizes\n"), std::string::npos) << small.err;
  test::command_result large = test::run_command(
      rec_.command({"-e", "cpu-clock", "-m", "16", "--switch-output=1M", "-o", data_, "--",
                    "true"}),
      60s);
  EXPECT_EQ(large.exit_code, 0) << large.describe();
  EXPECT_EQ(large.err.find(warning), std::string::npos) << large.err;
}

// A file after a switch describes the anonymous executable memory a JIT made before it, so perf
// report names the JIT's code from /tmp/perf-PID.map in every file.
TEST_F(RecordRotation, JitCodeMappedBeforeASwitchResolvesInTheNextFile) {
  if (!rec_.is_arec()) GTEST_SKIP() << "perf dies of a SIGUSR2 sent before it is ready";
  test::child_process recording =
      test::child_process::spawn(rec_.command({"-v", "-e", "cpu-clock", "--switch-output", "-o",
                                               data_, "--", test_program("jit_loop"), "60000"}));
  std::optional<std::string> pid = recording.read_stdout_line(60s);
  ASSERT_TRUE(pid) << "jit_loop did not start";
  const std::string symbols = "/tmp/perf-" + pid->substr(0, pid->size() - 1) + ".map";
  ASSERT_TRUE(recording.wait_for_stderr("arec: recording started\n", 60s));
  recording.send_signal(SIGUSR2);
  ASSERT_TRUE(recording.wait_for_stderr("arec: dump ", 60s));
  // A second's progress report after the switch: the new file has samples by then.
  ASSERT_TRUE(recording.wait_for_stderr("arec: progress", 60s, recording.stderr_read()));
  recording.send_signal(SIGINT);
  test::command_result run = recording.wait(60s);
  EXPECT_EQ(run.term_signal, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  ASSERT_EQ(files.size(), 2u) << run.err;
  test::command_result report =
      test::run_command({"perf", "report", "--stdio", "--sort", "sym", "-i", files.back()}, 120s);
  ::unlink(symbols.c_str());
  EXPECT_EQ(report.exit_code, 0) << report.describe();
  EXPECT_NE(report.out.find("[.] jit_spin"), std::string::npos) << report.out;
}

TEST_F(RecordRotation, PipeModeIsRefused) {
  test::command_result pipe = test::run_command(
      rec_.command({"-e", "cpu-clock", "--switch-output", "-o", "-", "--", "true"}), 60s);
  if (!rec_.is_arec()) return;  // perf 6.1 ignores the option there
  EXPECT_EQ(pipe.exit_code, 2) << pipe.describe();
  EXPECT_NE(pipe.err.find("not available in pipe mode"), std::string::npos) << pipe.err;
}

// With --threads each rotation is a whole data directory (header file and a data.N per
// streaming thread) that perf reads alone; the size is the directory's. perf 6.1 ignores
// --switch-output with --threads.
TEST_F(RecordRotation, ThreadsRotateWholeDataDirectories) {
  if (!rec_.is_arec()) GTEST_SKIP() << "perf 6.1 does not rotate with --threads";
  test::command_result run = record({"--threads=cpu", "--switch-output=40K"}, "1500");
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  EXPECT_GE(files.size(), 2u) << run.err;
  for (const std::string& file : files) {
    EXPECT_TRUE(std::filesystem::is_directory(file)) << file;
    EXPECT_TRUE(std::filesystem::exists(file + "/data")) << file;
    EXPECT_TRUE(std::filesystem::exists(file + "/data.0")) << file;
  }
  expect_split_without_loss(files, run);
}

TEST_F(RecordRotation, ThreadsWithCompressionRotateSystemWide) {
  if (!rec_.is_arec()) GTEST_SKIP() << "perf 6.1 does not rotate with --threads";
  test::command_result run = record({"-a", "-z", "--threads=cpu", "--switch-output=15K"}, "1500");
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  EXPECT_GE(files.size(), 2u) << run.err;
  expect_split_without_loss(files, run, "hot_loop", true);
}

TEST_F(RecordRotation, ThreadsSwitchOnEverySigusr2) {
  if (!rec_.is_arec()) GTEST_SKIP() << "perf 6.1 does not rotate with --threads";
  expect_one_switch_per_sigusr2({"--threads=cpu"}, 2);
}

}  // namespace
}  // namespace arec::e2e
