// A recorder on a machine in trouble: the disk fills up, arec is killed. What reached the disk
// stays readable by perf, and arec says what went wrong in one line.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
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

// A small tmpfs of our own, so the disk that fills up is only the test's.
class small_filesystem {
 public:
  explicit small_filesystem(const std::string& size) {
    if (::mount("tmpfs", dir_.path().c_str(), "tmpfs", 0, ("size=" + size).c_str()) != 0)
      error_ = std::string("mount tmpfs: ") + std::strerror(errno);
  }
  ~small_filesystem() {
    if (error_.empty()) ::umount2(dir_.path().c_str(), MNT_DETACH);
  }
  const std::string& error() const { return error_; }
  std::string file(const std::string& name) const { return dir_.file(name); }

 private:
  test::temp_dir dir_;
  std::string error_;
};

// Records system-wide at a high rate with call chains into `output` until the disk is full.
test::command_result record_until_full(const std::vector<std::string>& extra,
                                       const std::string& output) {
  recorder rec = recorder::from_environment();
  std::vector<std::string> args{"-a", "-g", "-F", "20000", "-o", output, "--duration", "30"};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::run_command(rec.command(args), 40s);
}

void expect_readable_with_samples(const std::string& data) {
  perf_report report = run_perf_report(data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  // -a -g at 20 kHz: on a busy machine a ring may overflow, which the file counts (LOST).
  EXPECT_FALSE(has_warning_besides_lost_chunks(report.run)) << report.run.err;
  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  EXPECT_GT(sample_records(data), 100u);
}

class RecordFailure : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!recorder::from_environment().is_arec()) GTEST_SKIP() << "arec's own behaviour";
    if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  }
};

TEST_F(RecordFailure, FullDiskStopsWithOneMessageAndAReadableFile) {
  small_filesystem disk("3m");
  if (!disk.error().empty()) GTEST_SKIP() << disk.error();
  const std::string data = disk.file("full.data");
  test::command_result run = record_until_full({}, data);
  ASSERT_FALSE(run.timed_out) << "arec kept running on a full disk: " << run.describe();
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_NE(run.err.find("arec: error: write " + data + ": No space left on device"),
            std::string::npos)
      << run.err;
  expect_readable_with_samples(data);
}

TEST_F(RecordFailure, FullDiskWithThreadsCutsEveryDataFileToWholeRecords) {
  small_filesystem disk("3m");
  if (!disk.error().empty()) GTEST_SKIP() << disk.error();
  const std::string data = disk.file("full-dir.data");
  test::command_result run = record_until_full({"--threads=cpu"}, data);
  ASSERT_FALSE(run.timed_out) << run.describe();
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_NE(run.err.find("No space left on device"), std::string::npos) << run.err;
  expect_readable_with_samples(data);
}

// kill -9 leaves no chance to finalize: the header written at start and its data size, kept
// current every second, must be enough for perf.
void kill_during_recording(const std::vector<std::string>& extra) {
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("killed.data");
  std::vector<std::string> args{"-v", "-a", "-g", "-o", data, "--duration", "30"};
  args.insert(args.end(), extra.begin(), extra.end());
  test::child_process recording = test::child_process::spawn(rec.command(args));
  ASSERT_TRUE(wait_for_samples_on_disk(recording, 100)) << recording.stderr_so_far();
  recording.send_signal(SIGKILL);
  test::command_result run = recording.wait(10s);
  EXPECT_EQ(run.term_signal, SIGKILL) << run.describe();
  expect_readable_with_samples(data);
}

TEST_F(RecordFailure, KillNineLeavesAFilePerfReads) {
  kill_during_recording({});
}

// Within the first second (before the first periodic update of the data size) the header
// already counts what synthesis wrote: perf reads the file as it is, without salvage.
TEST_F(RecordFailure, KillNineRightAfterStartLeavesAFilePerfReads) {
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("early.data");
  test::child_process recording =
      test::child_process::spawn(rec.command({"-v", "-a", "-o", data, "--duration", "30"}));
  ASSERT_TRUE(recording.wait_for_stderr("arec: recording started\n", 60s));
  recording.send_signal(SIGKILL);
  test::command_result run = recording.wait(10s);
  ASSERT_EQ(run.term_signal, SIGKILL) << run.describe();
  test::command_result script =
      test::run_command({"perf", "script", "-i", data, "--show-task-events"});
  EXPECT_EQ(script.exit_code, 0) << script.describe();
  EXPECT_NE(script.out.find("PERF_RECORD_COMM"), std::string::npos)
      << "the synthesized tasks are readable:\n" << script.out.substr(0, 2000);
}

// kill -9, then `arec convert --salvage`: perf must read the result, and it must hold at least
// every sample arec had reported on disk. The kill lands `after_header` past the header's write
// (start-up), or without it once samples are on disk (streaming).
void kill_then_salvage(const std::vector<std::string>& extra,
                       std::optional<std::chrono::milliseconds> after_header) {
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("killed.data");
  const std::string salvaged = dir.file("salvaged.data");
  std::vector<std::string> args{"-v", "-a", "-g", "-o", data, "--duration", "30"};
  args.insert(args.end(), extra.begin(), extra.end());
  test::child_process recording = test::child_process::spawn(rec.command(args));
  if (after_header) {
    // Start-up is the time after the file got its header: wait for that (not for a fixed time,
    // which a busy machine may spend before arec even reached that point).
    ASSERT_TRUE(wait_until_written(data, 60s)) << "arec wrote no header";
    std::this_thread::sleep_for(*after_header);
  } else {
    ASSERT_TRUE(wait_for_samples_on_disk(recording, 0)) << recording.stderr_so_far();
  }
  recording.send_signal(SIGKILL);
  test::command_result run = recording.wait(10s);
  ASSERT_EQ(run.term_signal, SIGKILL) << run.describe();
  std::uint64_t on_disk = last_progress(run.err);
  if (!after_header) {
    EXPECT_GT(on_disk, 0u) << run.err;
  }

  test::command_result salvage =
      test::run_command({arec_binary(), "convert", "--salvage", "-i", data, "-o", salvaged}, 60s);
  ASSERT_EQ(salvage.exit_code, 0) << salvage.describe();
  perf_report report = run_perf_report(salvaged);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  perf_script script = run_perf_script(salvaged);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  // On failure, what each step said: the recorder's progress, what salvage kept and dropped,
  // and perf script's warnings (a sample it did not print is not in the count).
  EXPECT_GE(script.samples.size(), on_disk)
      << run.err << salvage.describe() << "perf script: " << script.run.err;
}

const std::optional<std::chrono::milliseconds> while_streaming;

TEST_F(RecordFailure, KillNineWhileStreamingIsSalvaged) {
  kill_then_salvage({}, while_streaming);
}

TEST_F(RecordFailure, KillNineWhileStreamingCompressedIsSalvaged) {
  kill_then_salvage({"-z"}, while_streaming);
}

TEST_F(RecordFailure, KillNineWhileStreamingThreadsIsSalvaged) {
  kill_then_salvage({"--threads=cpu"}, while_streaming);
}

TEST_F(RecordFailure, KillNineWhileStreamingCompressedThreadsIsSalvaged) {
  kill_then_salvage({"--threads=cpu", "-z"}, while_streaming);
}

// Synthesis is the first few tens of milliseconds; the header is written before it starts, so
// a kill as soon as the header is there lands in it.
TEST_F(RecordFailure, KillNineDuringStartUpIsSalvaged) {
  for (int attempt = 0; attempt < 10 && !HasFailure(); ++attempt) {
    SCOPED_TRACE("kill " + std::to_string(attempt * 5) + " ms after the header");
    kill_then_salvage({}, std::chrono::milliseconds(attempt * 5));
  }
}

// The first Ctrl-C stops the recording and completes the file; a workload that ignores the
// SIGTERM arec then sends keeps arec waiting, and the second Ctrl-C ends that wait.
TEST_F(RecordFailure, SecondInterruptStopsWaitingForAWorkloadThatIgnoresTermination) {
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("stubborn.data");
  // The workload says when it ignores the signals: arec has started it by then.
  test::child_process recording = test::child_process::spawn(
      rec.command({"-o", data, "--", "sh", "-c", "trap '' TERM INT; echo ready; sleep 30"}));
  ASSERT_EQ(recording.read_stdout_line(60s), "ready\n") << recording.stderr_so_far();
  recording.send_signal(SIGINT);
  ASSERT_TRUE(recording.wait_for_stderr("arec: waiting for the workload", 60s))
      << recording.stderr_so_far();
  ASSERT_FALSE(recording.has_exited()) << "arec did not wait for its workload";
  recording.send_signal(SIGINT);
  test::command_result run = recording.wait(10s);
  ASSERT_FALSE(run.timed_out) << "the second Ctrl-C did not end arec: " << run.describe();
  EXPECT_EQ(run.term_signal, SIGINT) << run.describe();
  EXPECT_NE(run.err.find("arec: waiting for the workload"), std::string::npos) << run.err;
  auto summary = find_arec_summary(run.err);
  ASSERT_TRUE(summary) << "the file was not finalized before the wait: " << run.err;
  perf_report report = run_perf_report(data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  EXPECT_FALSE(has_warning_besides_lost_chunks(report.run)) << report.run.err;
  EXPECT_EQ(sample_records(data), summary->samples);
}

TEST_F(RecordFailure, SighupStopsCleanly) {
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("hangup.data");
  test::child_process recording =
      test::child_process::spawn(rec.command({"-v", "-a", "-o", data, "--duration", "30"}));
  ASSERT_TRUE(recording.wait_for_stderr("arec: recording started\n", 60s));
  recording.send_signal(SIGHUP);
  test::command_result run = recording.wait(10s);
  ASSERT_FALSE(run.timed_out) << run.describe();
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  auto summary = find_arec_summary(run.err);
  ASSERT_TRUE(summary) << run.err;
  perf_script script = run_perf_script(data);
  EXPECT_EQ(sample_records(data), summary->samples);
}

// --overwrite on a full disk. The tmpfs is mounted in a private mount namespace of the
// recording's own, so it goes away with the recording whatever happens to the test; the files
// are copied out once arec has exited. arec's pid is written to a file for the test's signals.
// The bytes a system-wide recording's prologue takes on this host now (what runs is synthesized
// into it, so a busy host's is larger): a `-- true` recording, features and all.
std::uint64_t system_wide_prologue_bytes(const recorder& rec) {
  test::temp_dir probe;
  const std::string data = probe.file("probe.data");
  test::command_result run =
      test::run_command(rec.command({"-q", "-a", "-g", "-e", "cpu-clock", "-o", data, "--", "true"}), 120s);
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  std::error_code error;
  std::uint64_t bytes = std::filesystem::file_size(data, error);
  return error ? 0 : bytes;
}

class full_disk_flight_recorder {
 public:
  // A disk of `prologues` system-wide prologues (as measured now) and `room` bytes more.
  full_disk_flight_recorder(unsigned prologues, std::uint64_t room,
                            const std::vector<std::string>& extra) {
    recorder rec = recorder::from_environment();
    const std::string size = std::to_string(prologues * system_wide_prologue_bytes(rec) + room);
    std::vector<std::string> args{"-v",
                                  "-a",
                                  "-g",
                                  "-e",
                                  "cpu-clock",
                                  "-F",
                                  "20000",
                                  "--overwrite",
                                  "--switch-output",
                                  "-o",
                                  disk_ + "/" + base_};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<std::string> argv{
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        "mount -t tmpfs -o size=\"$1\" tmpfs \"$2\" || exit 97; d=$2 c=$3 p=$4; shift 4; "
        "\"$@\" & echo $! > \"$p\"; wait $!; s=$?; cp -a \"$d\"/. \"$c\"/; exit $s",
        "sh",
        size,
        disk_,
        copy_.path(),
        pid_file_};
    std::vector<std::string> command = rec.command(args);
    argv.insert(argv.end(), command.begin(), command.end());
    std::filesystem::create_directory(disk_);  // the mount point
    recording_.emplace(test::child_process::spawn(argv));
  }
  test::child_process& recording() { return *recording_; }
  // Sends `signal` to arec itself (the shell around it waits for it).
  void signal_arec(int signal) {
    std::string text;
    while (text.empty() && !recording_->has_exited()) {
      std::ifstream file(pid_file_);
      std::getline(file, text);
    }
    if (!text.empty()) ::kill(static_cast<pid_t>(std::stoi(text)), signal);
  }
  // The outputs left, copied out of the namespace, oldest first, and the name arec gave them.
  std::vector<std::string> outputs() const { return rotated_outputs(copy_.path(), base_); }
  std::string path_on_disk(const std::string& copied) const {
    return disk_ + "/" + std::filesystem::path(copied).filename().string();
  }

 private:
  test::temp_dir dir_;
  test::temp_dir copy_;
  std::string disk_ = dir_.file("disk");
  std::string pid_file_ = dir_.file("pid");
  std::string base_ = "flight.data";
  std::optional<test::child_process> recording_;
};

std::uint64_t size_of(const std::string& path) {
  return std::filesystem::file_size(path);
}

// Read by perf as it is: a snapshot's pause may leave LOST records (perf warns of lost chunks),
// but no complaint about the file itself ("data size field is 0", a cut record).
void expect_perf_reads(const std::string& file) {
  perf_report report = run_perf_report(file);
  EXPECT_EQ(report.run.exit_code, 0) << file << ": " << report.run.describe();
  EXPECT_EQ(report.run.err.find("data size"), std::string::npos) << file << ": " << report.run.err;
  EXPECT_EQ(report.run.err.find("unexpected"), std::string::npos) << file << ": " << report.run.err;
  perf_script script = run_perf_script(file);
  EXPECT_EQ(script.run.exit_code, 0) << file << ": " << script.run.describe();
  EXPECT_GT(sample_records(file), 0u) << file;  // not script's lines: other tasks' names
}


// The last snapshot file is read by perf, and the summary's numbers are those of the files.
void expect_summary_of_files(const full_disk_flight_recorder& run_files,
                             const test::command_result& run,
                             const std::vector<std::string>& files) {
  ASSERT_FALSE(files.empty()) << run.err;
  std::optional<arec_summary> summary = find_arec_summary(run.err);
  ASSERT_TRUE(summary) << run.err;
  EXPECT_EQ(summary->path, run_files.path_on_disk(files.back())) << run.err;
  EXPECT_EQ(summary->last_bytes, size_of(files.back())) << run.err;
  EXPECT_EQ(summary->files, files.size()) << run.err;
  std::uint64_t all = 0;
  for (const std::string& file : files) all += size_of(file);
  EXPECT_EQ(summary->bytes, all) << run.err;
  expect_perf_reads(files.back());
  std::size_t samples = 0;
  std::string each;
  for (const std::string& file : files) {
    std::size_t in_file = sample_records(file);
    samples += in_file;
    each += file + ": " + std::to_string(in_file) + " samples\n";
  }
  EXPECT_EQ(summary->samples, samples) << each << run.err;
}

// A snapshot larger than the disk: the file keeps the slices of whole records that fit, its
// header says so, and arec says the disk was full and what did not fit.
TEST_F(RecordFailure, OverwriteSnapshotLargerThanTheDiskKeepsWhatFit) {
  // The prologue takes ~30 KB on a quiet host, far more where thousands of tasks run, and the
  // file holds it twice: at its start, and again read from /proc just before the snapshot
  // (--tail-synthesize). Three seconds of -a -g samples are more than 256 KiB beyond that even
  // where the kernel has lowered perf_event_max_sample_rate after earlier tests (with a 1 MiB
  // disk, two seconds at such a rate once fitted, and arec rightly went on recording).
  full_disk_flight_recorder flight(2, 256 << 10, {"-m", "256"});
  test::child_process& recording = flight.recording();
  for (int second = 0; second < 3; ++second)
    ASSERT_TRUE(recording.wait_for_stderr("arec: progress: ", 60s, recording.stderr_read()));
  flight.signal_arec(SIGUSR2);
  test::command_result run = recording.wait(60s);
  ASSERT_NE(run.exit_code, 97) << "no tmpfs: " << run.describe();
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_NE(run.err.find("No space left on device"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("arec: the disk was full: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(" samples of the snapshot did not fit and are lost"), std::string::npos)
      << run.err;
  std::vector<std::string> files = flight.outputs();
  ASSERT_EQ(files.size(), 1u) << run.err;
  expect_summary_of_files(flight, run, files);
}

// Snapshot after snapshot until the disk is full: every file is readable, the last one too,
// and the summary gives the total of all files and the last file's own size.
TEST_F(RecordFailure, OverwriteRotationOnAFullDiskEndsWithAReadableLastFile) {
  full_disk_flight_recorder flight(3, 3 << 20, {"-m", "32"});
  test::child_process& recording = flight.recording();
  ASSERT_TRUE(recording.wait_for_stderr("arec: progress: ", 60s));
  for (int snapshot = 0; snapshot < 100 && !recording.has_exited(); ++snapshot) {
    std::size_t from = recording.stderr_read();
    flight.signal_arec(SIGUSR2);
    if (!recording.wait_for_stderr("arec: dump ", 60s, from)) break;
  }
  if (!recording.has_exited()) flight.signal_arec(SIGINT);  // fails below, without a hang
  test::command_result run = recording.wait(60s);
  ASSERT_NE(run.exit_code, 97) << "no tmpfs: " << run.describe();
  EXPECT_EQ(run.exit_code, 1) << "the disk never filled up: " << run.describe();
  EXPECT_NE(run.err.find("arec: the disk was full: "), std::string::npos) << run.err;
  std::vector<std::string> files = flight.outputs();
  ASSERT_GE(files.size(), 2u) << run.err;
  for (const std::string& file : files) expect_perf_reads(file);
  expect_summary_of_files(flight, run, files);
}

}  // namespace
}  // namespace arec::e2e
