// --overwrite, perf's flight recorder: every ring runs backward and overwrites its oldest
// records; nothing is written while recording. A SIGUSR2 or a --control snapshot (with
// --switch-output) and the end each write what the rings hold since the previous snapshot as
// one complete file: the last records before it, none of them in two files.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "arec_summary.hpp"
#include "io/unique_fd.hpp"
#include "perf_report.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "rotated_outputs.hpp"
#include "side_by_side.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

const std::string ack_bytes("ack\n\0", 5);

std::uint64_t monotonic_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(now.tv_nsec);
}

// The time of every sample in `data` in ns, as `perf script --ns` prints it ("SSS.NNNNNNNNN:").
std::vector<std::uint64_t> sample_times_ns(const std::string& data) {
  test::command_result run =
      test::run_command({"perf", "script", "-i", data, "-F", "time", "--ns"}, 120s);
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  std::vector<std::uint64_t> times;
  std::size_t start = 0;
  while (start < run.out.size()) {
    std::size_t end = run.out.find('\n', start);
    if (end == std::string::npos) end = run.out.size();
    std::string line = run.out.substr(start, end - start);
    start = end + 1;
    std::size_t dot = line.find('.');
    if (dot == std::string::npos) continue;
    std::uint64_t seconds = std::stoull(line.substr(0, dot));
    std::uint64_t nanos = std::stoull(line.substr(dot + 1, 9));
    times.push_back(seconds * 1'000'000'000u + nanos);
  }
  std::sort(times.begin(), times.end());
  return times;
}

// Reads exactly `size` bytes from `fd`; what came within 60 s.
std::string read_exactly(int fd, std::size_t size) {
  std::string got;
  while (got.size() < size) {
    pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&ready, 1, 60'000) != 1) break;
    char buffer[16];
    ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, size - got.size()));
    if (n <= 0) break;
    got.append(buffer, static_cast<std::size_t>(n));
  }
  return got;
}

// What one snapshot can hold at most: a one-page ring per cpu of samples at least 40 bytes long
// (header, IP, TID, TIME, PERIOD). A recording of a second at 4000 Hz per cpu made far more:
// a snapshot within this bound kept only the last of them.
std::size_t ring_bound() {
  return static_cast<std::size_t>(::sysconf(_SC_NPROCESSORS_ONLN)) *
         static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)) / 40;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++count;
  return count;
}

// Every cpu samples at 4000 Hz (-a, cpu-clock samples idle cpus too) into a one-page ring: it
// holds well under a second of samples, so after a second the oldest are overwritten. Sample
// times are CLOCK_MONOTONIC (-k), so the test can compare them with its own clock.
class RecordOverwrite : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
    if (!rec_.is_arec()) GTEST_SKIP() << "synchronises on arec's -v messages and summary";
  }
  test::child_process start(std::vector<std::string> extra) {
    std::vector<std::string> args{"-v", "-a", "-e",        "cpu-clock",   "-F", "4000", "-m",
                                  "1",  "-k", "monotonic", "--overwrite", "-o", data_};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", test_program("hot_loop"), "60000"});
    return test::child_process::spawn(rec_.command(args));
  }
  // Returns once arec has recorded long enough for every ring to have wrapped many times: its
  // first progress line comes a second after the start.
  void wait_until_rings_wrapped(test::child_process& recording) {
    EXPECT_TRUE(recording.wait_for_stderr("arec: recording started\n", 60s));
    EXPECT_TRUE(recording.wait_for_stderr("arec: progress: ", 60s));
  }
  // The end's one output (a file, or a directory with --threads) holds the rings' last state:
  // no more than they hold, nothing after the end, every sample the summary counts.
  void expect_last_state_at_the_end(std::vector<std::string> extra) {
    test::child_process recording = start(std::move(extra));
    wait_until_rings_wrapped(recording);
    recording.send_signal(SIGINT);
    test::command_result run = recording.wait(60s);
    std::uint64_t ended = monotonic_ns();
    EXPECT_EQ(run.term_signal, 0) << run.describe();
    EXPECT_TRUE(rotated_outputs(dir_.path(), base_).empty());
    expect_readable_alone(data_);
    std::vector<std::uint64_t> times = sample_times_ns(data_);
    ASSERT_FALSE(times.empty());
    EXPECT_LE(times.size(), ring_bound());
    EXPECT_LE(times.back(), ended);
    std::optional<arec_summary> summary = find_arec_summary(run.err);
    ASSERT_TRUE(summary) << run.err;
    EXPECT_EQ(summary->samples, times.size());
  }
  // The files are disjoint in time, in order, and hold every sample the summary counts.
  void expect_disjoint_and_counted(const std::vector<std::string>& files,
                                   const test::command_result& run) {
    std::size_t samples = 0;
    std::uint64_t previous_last = 0;
    for (const std::string& file : files) {
      expect_readable_alone(file);
      std::vector<std::uint64_t> times = sample_times_ns(file);
      ASSERT_FALSE(times.empty()) << file << " holds no sample";
      EXPECT_GT(times.front(), previous_last) << file << " repeats or precedes the file before";
      previous_last = times.back();
      samples += times.size();
    }
    std::optional<arec_summary> summary = find_arec_summary(run.err);
    ASSERT_TRUE(summary) << run.err;
    EXPECT_EQ(summary->samples, samples) << run.err;
  }

  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
  const std::string base_ = "flight.data";
  const std::string data_ = dir_.file(base_);
};

TEST_F(RecordOverwrite, Sigusr2WritesOneCompleteFileOfTheLastSamples) {
  test::child_process recording = start({"--switch-output"});
  wait_until_rings_wrapped(recording);
  recording.send_signal(SIGUSR2);
  ASSERT_TRUE(recording.wait_for_stderr("arec: dump ", 60s));
  std::uint64_t dumped = monotonic_ns();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  ASSERT_EQ(files.size(), 1u);
  expect_readable_alone(files[0]);
  std::vector<std::uint64_t> times = sample_times_ns(files[0]);
  ASSERT_FALSE(times.empty());
  // The last samples before the signal: the older ones were overwritten, none came after.
  EXPECT_LE(times.size(), ring_bound()) << "more than the rings hold";
  EXPECT_LE(times.back(), dumped) << "the snapshot holds samples from after it was written";
  recording.send_signal(SIGINT);
  test::command_result run = recording.wait(60s);
  EXPECT_EQ(run.term_signal, 0) << run.describe();
  // As perf, the end writes the rings' last state too, in a file of its own.
  files = rotated_outputs(dir_.path(), base_);
  ASSERT_EQ(files.size(), 2u) << run.err;
  EXPECT_NE(::access(data_.c_str(), F_OK), 0) << "--switch-output names the final file too";
  expect_disjoint_and_counted(files, run);
}

// -z: each snapshot's file has its own zstd stream and decodes alone.
TEST_F(RecordOverwrite, CompressedSnapshotsDecodeOnTheirOwn) {
  test::child_process recording = start({"-z", "--switch-output"});
  wait_until_rings_wrapped(recording);
  recording.send_signal(SIGUSR2);
  ASSERT_TRUE(recording.wait_for_stderr("arec: dump ", 60s));
  recording.send_signal(SIGINT);
  test::command_result run = recording.wait(60s);
  EXPECT_EQ(run.term_signal, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  ASSERT_EQ(files.size(), 2u) << run.err;
  EXPECT_NE(run.err.find("arec: compressed "), std::string::npos) << run.err;
  expect_disjoint_and_counted(files, run);
}

// perf 6.1 only acknowledges "snapshot" (it takes none from overwrite rings); arec writes the
// file, then acknowledges: when the ack comes, the file is complete.
TEST_F(RecordOverwrite, ControlSnapshotIsAcknowledgedOnceItsFileIsComplete) {
  const std::string control_path = dir_.file("ctl"), ack_path = dir_.file("ack");
  ASSERT_EQ(::mkfifo(control_path.c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo(ack_path.c_str(), 0600), 0);
  io::unique_fd control = io::unique_fd::open(control_path.c_str(), O_RDWR);
  io::unique_fd ack = io::unique_fd::open(ack_path.c_str(), O_RDWR);
  test::child_process recording =
      start({"--switch-output", "--control", "fifo:" + control_path + "," + ack_path});
  wait_until_rings_wrapped(recording);
  for (std::size_t n = 1; n <= 2; ++n) {
    ASSERT_EQ(::write(control.get(), "snapshot\n", 9), 9);
    ASSERT_EQ(read_exactly(ack.get(), ack_bytes.size()), ack_bytes);
    std::uint64_t acknowledged = monotonic_ns();
    std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
    ASSERT_EQ(files.size(), n);
    expect_readable_alone(files.back());
    std::vector<std::uint64_t> times = sample_times_ns(files.back());
    ASSERT_FALSE(times.empty());
    // The last samples before the command (the oldest were overwritten), none after its ack.
    EXPECT_LE(times.size(), ring_bound());
    EXPECT_LE(times.back(), acknowledged);
  }
  ASSERT_EQ(::write(control.get(), "stop\n", 5), 5);
  ASSERT_EQ(read_exactly(ack.get(), ack_bytes.size()), ack_bytes);
  test::command_result run = recording.wait(60s);
  EXPECT_EQ(run.term_signal, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  ASSERT_EQ(files.size(), 3u) << run.err;
  expect_disjoint_and_counted(files, run);
}

TEST_F(RecordOverwrite, MaxFilesKeepsTheNewestSnapshots) {
  const std::string control_path = dir_.file("ctl"), ack_path = dir_.file("ack");
  ASSERT_EQ(::mkfifo(control_path.c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo(ack_path.c_str(), 0600), 0);
  io::unique_fd control = io::unique_fd::open(control_path.c_str(), O_RDWR);
  io::unique_fd ack = io::unique_fd::open(ack_path.c_str(), O_RDWR);
  test::child_process recording = start({"--switch-output", "--switch-max-files=2", "--control",
                                         "fifo:" + control_path + "," + ack_path});
  wait_until_rings_wrapped(recording);
  for (int n = 0; n < 3; ++n) {
    ASSERT_EQ(::write(control.get(), "snapshot\n", 9), 9);
    ASSERT_EQ(read_exactly(ack.get(), ack_bytes.size()), ack_bytes);
    EXPECT_LE(rotated_outputs(dir_.path(), base_).size(), 2u);
  }
  recording.send_signal(SIGINT);
  test::command_result run = recording.wait(60s);
  EXPECT_EQ(run.term_signal, 0) << run.describe();
  // Three snapshots and the end were written; the newest two are kept.
  EXPECT_EQ(count_of(run.err, "arec: dump "), 4u) << run.err;
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  ASSERT_EQ(files.size(), 2u) << run.err;
  std::size_t third = run.err.find("arec: dump " + files[0] + "\n");
  std::size_t fourth = run.err.find("arec: dump " + files[1] + "\n");
  EXPECT_NE(third, std::string::npos) << run.err;
  EXPECT_NE(fourth, std::string::npos) << run.err;
  EXPECT_EQ(count_of(run.err.substr(0, third), "arec: dump "), 2u) << run.err;
  for (const std::string& file : files) expect_readable_alone(file);
}

// Without --switch-output nothing is written until the end, which writes the last state into
// the one output, as perf does.
TEST_F(RecordOverwrite, TheEndWritesTheLastSamplesIntoTheOutput) {
  expect_last_state_at_the_end({});
}

// --threads: each streaming thread's rings go into its own data.N at the end.
TEST_F(RecordOverwrite, ThreadsWriteTheLastSamplesIntoTheirDataFiles) {
  expect_last_state_at_the_end({"--threads"});
  EXPECT_TRUE(std::filesystem::is_directory(data_));
}

// --threads with --switch-output: each snapshot is a whole data directory, each thread's rings
// in its own data.N.
TEST_F(RecordOverwrite, ThreadsSnapshotsAreWholeDataDirectories) {
  test::child_process recording = start({"--threads=cpu", "--switch-output"});
  wait_until_rings_wrapped(recording);
  recording.send_signal(SIGUSR2);
  ASSERT_TRUE(recording.wait_for_stderr("arec: dump ", 60s));
  recording.send_signal(SIGINT);
  test::command_result run = recording.wait(60s);
  EXPECT_EQ(run.term_signal, 0) << run.describe();
  std::vector<std::string> files = rotated_outputs(dir_.path(), base_);
  ASSERT_EQ(files.size(), 2u) << run.err;
  // Each thread pauses and reads its own rings in turn, so two files' times may overlap by that
  // skew; what must hold is that no sample is in two files and every one is counted.
  std::set<std::uint64_t> seen;
  std::size_t samples = 0;
  for (const std::string& file : files) {
    EXPECT_TRUE(std::filesystem::exists(file + "/data.0")) << file;
    expect_readable_alone(file);
    for (std::uint64_t time : sample_times_ns(file)) {
      EXPECT_TRUE(seen.insert(time).second) << time << " appears twice, again in " << file;
      ++samples;
    }
  }
  std::optional<arec_summary> summary = find_arec_summary(run.err);
  ASSERT_TRUE(summary) << run.err;
  EXPECT_EQ(summary->samples, samples) << run.err;
}

TEST_F(RecordOverwrite, RefusesWhatCannotWork) {
  struct refused {
    std::vector<std::string> args;
    std::string says;
  };
  for (const refused& c : {
           refused{{"-o", "-"}, "--overwrite is not available in pipe mode"},
           refused{{"--switch-output=1M", "-o", data_},
                   "--switch-output=SIZE is not available with --overwrite"},
       }) {
    std::vector<std::string> args{"--overwrite", "-e", "cpu-clock"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"--", "true"});
    test::command_result run = test::run_command(rec_.command(args), 60s);
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    EXPECT_NE(run.err.find("arec: error: " + c.says), std::string::npos) << run.err;
  }
  EXPECT_FALSE(std::filesystem::exists(data_));
}

// The attrs perf reads back are perf record's: write_backward on every event.
class RecordOverwriteAttrs : public side_by_side_test {};

TEST_F(RecordOverwriteAttrs, EveryEventWritesBackwardAsInPerf) {
  for (const auto& [who, data] : {std::pair{rec_, ours_}, std::pair{perf_, theirs_}}) {
    record(who, {"--overwrite", "-e", "cpu-clock"}, data, {test_program("hot_loop"), "100"});
    test::command_result evlist = test::run_command({"perf", "evlist", "-v", "-i", data}, 60s);
    ASSERT_EQ(evlist.exit_code, 0) << evlist.describe();
    // perf moves the side-band records to the first event; arec keeps its tracking event.
    EXPECT_GE(count_of(evlist.out, "\n"), 1u) << who.describe() << ": " << evlist.out;
    EXPECT_EQ(count_of(evlist.out, "write_backward: 1"), count_of(evlist.out, "\n"))
        << who.describe() << ": " << evlist.out;
    EXPECT_NE(evlist.out.find("cpu-clock: "), std::string::npos) << evlist.out;
  }
}

}  // namespace
}  // namespace arec::e2e
