// Pipe mode, as perf record has it: `-o -` (or no -o with a pipe on stdout) streams perf's
// pipe format, which perf report, perf script and perf inject read from stdin or from a file
// the stream was saved to.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// `recording | reader` through sh: each command is a list of words.
std::vector<std::string> piped(const std::vector<std::string>& recording,
                               const std::string& reader) {
  std::vector<std::string> argv{"sh", "-c", "\"$@\" | " + reader, "sh"};
  argv.insert(argv.end(), recording.begin(), recording.end());
  return argv;
}

bool starts_as_pipe_stream(const std::string& bytes) {
  std::uint64_t size = 0;
  if (bytes.size() < 16 || bytes.compare(0, 8, "PERFILE2") != 0) return false;
  std::memcpy(&size, bytes.data() + 8, sizeof size);
  return size == 16;
}

class RecordPipe : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  }

  std::vector<std::string> hot_loop(std::vector<std::string> options) const {
    options.insert(options.end(), {"--", test_program("hot_loop"), "200"});
    return rec_.command(options);
  }

  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
};

TEST_F(RecordPipe, PerfReportReadsTheStreamFromStdin) {
  test::command_result report =
      test::run_command(piped(hot_loop({"-q", "-e", "cpu-clock", "-o", "-"}),
                              "perf report -i - --stdio --sort comm,dso"),
                        60s);
  ASSERT_EQ(report.exit_code, 0) << rec_.describe() << ": " << report.describe();
  EXPECT_NE(report.out.find("# Samples: "), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("of event 'cpu-clock'"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("hot_loop  hot_loop"), std::string::npos) << report.out;
}

TEST_F(RecordPipe, ASavedStreamIsAPerfDataFile) {
  const std::string saved = dir_.file("saved.data");
  std::vector<std::string> record = hot_loop({"-q", "-e", "cpu-clock", "-z", "-o", "-"});
  std::vector<std::string> argv{"sh", "-c", "\"$@\" > \"$0\"", saved};
  argv.insert(argv.end(), record.begin(), record.end());
  test::command_result recorded = test::run_command(argv, 60s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  test::command_result report =
      test::run_command({"perf", "report", "-i", saved, "--stdio", "--sort", "comm"}, 60s);
  ASSERT_EQ(report.exit_code, 0) << report.describe();
  EXPECT_NE(report.out.find("hot_loop"), std::string::npos) << report.out;
  test::command_result header = test::run_command({"perf", "report", "--header-only", "-i", saved});
  ASSERT_EQ(header.exit_code, 0) << header.describe();
  EXPECT_NE(header.out.find("# event : name = cpu-clock"), std::string::npos) << header.out;
  EXPECT_NE(header.out.find("# compressed : Zstd"), std::string::npos) << header.out;
}

TEST_F(RecordPipe, PerfInjectAddsTheBuildIds) {
  const std::string injected = dir_.file("injected.data");
  test::command_result inject = test::run_command(
      piped(hot_loop({"-q", "-e", "cpu-clock", "-o", "-"}), "perf inject -b -o " + injected), 60s);
  ASSERT_EQ(inject.exit_code, 0) << inject.describe();
  test::command_result ids = test::run_command({"perf", "buildid-list", "-i", injected}, 60s);
  ASSERT_EQ(ids.exit_code, 0) << ids.describe();
  EXPECT_NE(ids.out.find(test_program("hot_loop")), std::string::npos) << ids.out;
}

TEST_F(RecordPipe, TracepointsCarryTheirFormatsInTheStream) {
  if (auto why = missing_prerequisite(perf_scope::tracepoint)) GTEST_SKIP() << *why;
  // In a mount namespace of its own: perf record, as the recorder, would leave tracefs mounted.
  std::vector<std::string> argv{"unshare", "--mount", "--propagation", "private"};
  std::vector<std::string> pipeline = piped(
      rec_.command({"-q", "-a", "-e", "sched:sched_switch", "-o", "-", "--", "sleep", "0.1"}),
      "perf script -i -");
  argv.insert(argv.end(), pipeline.begin(), pipeline.end());
  test::command_result script = test::run_command(argv, 60s);
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  EXPECT_NE(script.out.find("sched:sched_switch: prev_comm="), std::string::npos)
      << script.out.substr(0, 2000);
}

// Without -o, a pipe on stdout gets the stream and no perf.data is made; the workload's own
// output goes to stderr so that it does not end up inside the stream.
TEST_F(RecordPipe, APipeOnStdoutGetsTheStreamAndTheWorkloadWritesToStderr) {
  std::vector<std::string> record =
      rec_.command({"-q", "-e", "cpu-clock", "--", "sh", "-c", "echo workload-says-$((6 * 7))"});
  record.insert(record.begin(), {"env", "-C", dir_.path()});
  test::command_result run = test::run_command(record, 60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_TRUE(starts_as_pipe_stream(run.out)) << run.out.substr(0, 64);
  // The command line is in the stream (CMDLINE); what the workload printed must not be.
  EXPECT_EQ(run.out.find("workload-says-42"), std::string::npos);
  EXPECT_NE(run.err.find("workload-says-42"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("perf.data")));
}

// A reader that goes away ends the recording with an error; the workload does not run on.
TEST_F(RecordPipe, AReaderThatLeavesEndsTheRecording) {
  if (!rec_.is_arec()) GTEST_SKIP() << "arec's message";
  test::command_result run =
      test::run_command({"sh", "-c", "\"$@\" | head -c 64 > /dev/null; wait", "sh",
                         rec_.command({})[0], "-e", "cpu-clock", "-o", "-", "--", "sleep", "600"},
                        120s);
  EXPECT_FALSE(run.timed_out) << "arec kept recording into a closed pipe";
  EXPECT_NE(run.err.find("arec: error: write standard output: Broken pipe"), std::string::npos)
      << run.err;
}

TEST_F(RecordPipe, ThreadsAreRefusedAsPerfRefusesThem) {
  test::command_result run =
      test::run_command(rec_.command({"--threads", "-o", "-", "--", "true"}), 60s);
  EXPECT_NE(run.exit_code, 0) << run.describe();
  EXPECT_EQ(run.out, "");
  if (rec_.is_arec()) {
    EXPECT_EQ(run.err,
              "arec: error: parallel streaming (--threads) is not available in pipe mode\n");
  }
}

}  // namespace
}  // namespace arec::e2e
