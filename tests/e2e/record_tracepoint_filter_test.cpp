// Tracepoint wildcards, --filter and --exclude-perf, compared with perf record 6.1 on this
// machine. Every recording runs in a mount namespace of its own: perf mounts tracefs on
// /sys/kernel/tracing when none is mounted, and that mount must not reach the host.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// `command` in a private mount namespace; its pid (kept through the execs) is written to
// `pid_file` when that is not empty.
std::vector<std::string> in_own_mounts(const std::vector<std::string>& command,
                                       const std::string& pid_file = "/dev/null") {
  std::vector<std::string> argv{
      "unshare", "--mount", "--propagation", "private", "sh", "-c", "echo $$ > \"$0\"; exec \"$@\"",
      pid_file};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The events `perf evlist` lists, without arec's tracking event and perf's tips.
std::vector<std::string> listed_events(const std::string& data) {
  test::command_result evlist = test::run_command({"perf", "evlist", "-i", data});
  EXPECT_EQ(evlist.exit_code, 0) << evlist.describe();
  std::vector<std::string> events;
  for (const std::string& line : lines_of(evlist.out))
    if (!line.empty() && line[0] != '#' && line.rfind("dummy:", 0) != 0) events.push_back(line);
  return events;
}

class RecordTracepointFilter : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::tracepoint)) GTEST_SKIP() << *why;
  }

  // Records `args` with `who` into `data`, in a mount namespace of its own.
  test::command_result record(const recorder& who, std::vector<std::string> args,
                              const std::string& data, const std::string& pid_file = "/dev/null") {
    args.insert(args.begin(), {"-q", "-o", data});
    return test::run_command(in_own_mounts(who.command(args), pid_file), 60s);
  }

  recorder rec_ = recorder::from_environment();
  recorder perf_ = recorder::reference_perf();
  test::temp_dir dir_;
  const std::string ours_ = dir_.file("ours.data"), theirs_ = dir_.file("theirs.data");
};

TEST_F(RecordTracepointFilter, WildcardsExpandToTheEventsPerfRecords) {
  for (const std::string pattern :
       {"sched:sched_wak*", "sched:sched_process_*", "sch?d:sched_switch", "sch*:sched_switch"}) {
    SCOPED_TRACE(pattern);
    // System-wide, so that each file holds samples: perf reads no events from an empty one.
    std::vector<std::string> args{"-e", pattern, "-a", "--", "sleep", "0.1"};
    test::command_result ours = record(rec_, args, ours_);
    ASSERT_EQ(ours.exit_code, 0) << rec_.describe() << ": " << ours.describe();
    test::command_result theirs = record(perf_, args, theirs_);
    ASSERT_EQ(theirs.exit_code, 0) << theirs.describe();
    std::vector<std::string> events = listed_events(ours_);
    EXPECT_EQ(events, listed_events(theirs_));
    EXPECT_FALSE(events.empty());
  }
}

TEST_F(RecordTracepointFilter, WildcardsThatMatchNothingAreUsageErrorsAsInPerf) {
  for (const std::string pattern : {"sched:nomatch*", "nosystem*:sched_switch", "*:sched_switch"}) {
    SCOPED_TRACE(pattern);
    test::command_result ours = record(rec_, {"-e", pattern, "--", "true"}, ours_);
    EXPECT_EQ(ours.exit_code, rec_.usage_error_status()) << ours.describe();
    test::command_result theirs = record(perf_, {"-e", pattern, "--", "true"}, theirs_);
    EXPECT_EQ(theirs.exit_code, perf_.usage_error_status()) << theirs.describe();
  }
}

TEST_F(RecordTracepointFilter, FilterKeepsOnlyTheSwitchesItNames) {
  // A shell that sleeps in a loop is switched out on every round.
  test::child_process target =
      test::child_process::spawn({"sh", "-c", "while :; do sleep 0.01; done"});
  const std::string pid = std::to_string(target.pid());
  std::vector<std::string> args{"-e", "sched:sched_switch", "--filter", "prev_pid == " + pid, "-a"};
  for (const std::string& arg : rec_.duration_args("0.5")) args.push_back(arg);
  test::command_result run = record(rec_, args, ours_);
  ASSERT_EQ(run.exit_code, 0) << rec_.describe() << ": " << run.describe();

  test::command_result script = test::run_command({"perf", "script", "-i", ours_}, 60s);
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  std::size_t switches = 0;
  for (const std::string& line : lines_of(script.out)) {
    if (line.find("sched:sched_switch:") == std::string::npos) continue;
    ++switches;
    EXPECT_NE(line.find(" prev_pid=" + pid + " "), std::string::npos) << line;
  }
  EXPECT_GT(switches, 0u) << script.out.substr(0, 2000);
}

TEST_F(RecordTracepointFilter, FilterOnEveryEventOfAWildcard) {
  // common_pid is a field of every tracepoint: the filter suits all that the wildcard names.
  test::command_result run =
      record(rec_, {"-e", "sched:sched_wak*", "--filter", "common_pid != 0", "--", "true"}, ours_);
  ASSERT_EQ(run.exit_code, 0) << rec_.describe() << ": " << run.describe();
  // A field only some of them have is refused, by the kernel, for the others (perf's error).
  run = record(rec_, {"-e", "sched:sched_wak*", "--filter", "prev_pid == 1", "--", "true"}, ours_);
  EXPECT_NE(run.exit_code, 0) << run.describe();
  EXPECT_NE(run.exit_code, rec_.usage_error_status()) << "the kernel refuses it, not the parser";
}

TEST_F(RecordTracepointFilter, FilterTheKernelRefusesIsAnError) {
  test::command_result run =
      record(rec_, {"-e", "sched:sched_switch", "--filter", "bogus ==", "--", "true"}, ours_);
  EXPECT_NE(run.exit_code, 0) << run.describe();
  EXPECT_NE(run.exit_code, rec_.usage_error_status()) << run.describe();
  if (!rec_.is_arec()) return;
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "arec: error: ioctl PERF_EVENT_IOC_SET_FILTER \"bogus ==\" on sched:sched_switch: "
            "Invalid argument\n");
}

TEST_F(RecordTracepointFilter, FilterAndExcludePerfMustFollowATracepointEvent) {
  const std::vector<std::vector<std::string>> cases{
      {"--filter", "x", "-e", "sched:sched_switch"},
      {"-e", "cpu-clock", "--filter", "x"},
      {"-e", "sched:sched_switch,cpu-clock", "--filter", "x"},
      {"--exclude-perf", "-e", "sched:sched_switch"},
      {"-e", "cpu-clock", "--exclude-perf"},
  };
  for (std::vector<std::string> args : cases) {
    std::string described;
    for (const std::string& arg : args) described += arg + " ";
    SCOPED_TRACE(described);
    args.insert(args.end(), {"--", "true"});
    test::command_result run = record(rec_, args, ours_);
    EXPECT_EQ(run.exit_code, rec_.usage_error_status()) << run.describe();
  }
  if (!rec_.is_arec()) return;
  test::command_result run =
      record(rec_, {"-e", "cpu-clock", "--filter", "x", "--", "true"}, ours_);
  EXPECT_EQ(run.err,
            "arec: error: --filter x: must follow a -e of tracepoints; 'cpu-clock' is not a "
            "tracepoint (arec filters only tracepoints)\n");
}

// The recorder's pid from `pid_file`, and the processes of the samples in `data`.
struct sampled_processes {
  std::string recorder_pid;
  std::vector<std::string> own_samples;  // "comm pid/tid" of the samples of the recorder's pid
  std::size_t samples = 0;
};

sampled_processes processes_in(const std::string& data, const std::string& pid_file) {
  sampled_processes found;
  std::ifstream(pid_file) >> found.recorder_pid;
  EXPECT_FALSE(found.recorder_pid.empty());
  test::command_result script =
      test::run_command({"perf", "script", "-F", "comm,pid,tid", "-i", data}, 60s);
  EXPECT_EQ(script.exit_code, 0) << script.describe();
  static const std::regex sample(R"(^\s*(.*\S)\s+(\d+)/(\d+)\s*$)");
  for (const std::string& line : lines_of(script.out)) {
    std::smatch match;
    if (!std::regex_match(line, match, sample)) continue;
    ++found.samples;
    // io_uring's workers belong to arec's process but are the kernel's, made on demand: no
    // filter can name them in advance (perf has none).
    if (match[2] == found.recorder_pid && match[1].str().rfind("iou-wrk", 0) != 0)
      found.own_samples.push_back(line);
  }
  return found;
}

TEST_F(RecordTracepointFilter, ExcludePerfLeavesOutTheRecordersOwnSwitches) {
  const std::string pid_file = dir_.file("recorder.pid");
  std::vector<std::string> args{"-e", "sched:sched_switch", "-a"};
  for (const std::string& arg : rec_.duration_args("0.5")) args.push_back(arg);

  // Without it, the recorder's own switches are there: the check below can see them.
  test::command_result run = record(rec_, args, ours_, pid_file);
  ASSERT_EQ(run.exit_code, 0) << rec_.describe() << ": " << run.describe();
  sampled_processes all = processes_in(ours_, pid_file);
  EXPECT_FALSE(all.own_samples.empty()) << "pid " << all.recorder_pid;

  args.insert(args.begin() + 2, "--exclude-perf");
  run = record(rec_, args, ours_, pid_file);
  ASSERT_EQ(run.exit_code, 0) << rec_.describe() << ": " << run.describe();
  sampled_processes excluded = processes_in(ours_, pid_file);
  EXPECT_GT(excluded.samples, 0u);
  EXPECT_TRUE(excluded.own_samples.empty())
      << "pid " << excluded.recorder_pid << ": " << excluded.own_samples.size()
      << " samples, first: " << excluded.own_samples.front();
}

}  // namespace
}  // namespace arec::e2e
