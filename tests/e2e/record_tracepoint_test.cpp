// Tracepoint events (-e sched:sched_switch): the raw tracepoint data is recorded together with
// its format, so perf script prints the decoded fields.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

TEST(RecordTracepoint, SchedSwitchSamplesDecodeWithFields) {
  if (auto why = missing_prerequisite(perf_scope::tracepoint)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("tracepoint.data");

  test::command_result run = test::run_command(
      rec.command({"-e", "sched:sched_switch", "-a", "-o", data, "--", "sleep", "0.5"}));
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();

  test::command_result script = test::run_command({"perf", "script", "-i", data});
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  std::size_t switches = 0;
  std::size_t decoded = 0;
  bool sleep_switched_out = false;
  // One record per "sched:sched_switch:" line and the lines after it: a task whose name holds a
  // newline (any process may run beside the test) continues its record on the next line.
  std::string record;
  auto count = [&] {
    if (record.empty()) return;
    ++switches;
    if (record.find("prev_comm=") != std::string::npos &&
        record.find("next_comm=") != std::string::npos)
      ++decoded;
    // The workload blocks in nanosleep, so the kernel switches away from it at least once.
    if (record.find("prev_comm=sleep ") != std::string::npos) sleep_switched_out = true;
  };
  std::istringstream lines(script.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("sched:sched_switch:") != std::string::npos) {
      count();
      record = line;
    } else if (!record.empty()) {
      record += "\n" + line;
    }
  }
  count();
  ASSERT_GT(switches, 0u) << "perf script:\n" << script.out.substr(0, 3000);
  EXPECT_EQ(decoded, switches) << "perf script:\n" << script.out.substr(0, 3000);
  EXPECT_TRUE(sleep_switched_out) << "perf script:\n" << script.out.substr(0, 3000);
}

// A freshly booted machine has no tracefs mounted. The recording runs in a mount namespace of
// its own from which every tracefs is unmounted, as on such a machine.
test::command_result record_without_tracefs(const std::string& prefix,
                                            const std::vector<std::string>& command) {
  std::string script =
      "for m in /sys/kernel/tracing /sys/kernel/debug/tracing /sys/kernel/debug; do "
      "umount -l $m 2>/dev/null; done; "
      "if grep -q ' - tracefs ' /proc/self/mountinfo; then echo still mounted >&2; exit 77; fi; "
      "cat /proc/self/mountinfo > \"$0.before\"; " +
      prefix +
      " \"$@\"; status=$?; "
      "cat /proc/self/mountinfo > \"$0.after\"; exit $status";
  std::vector<std::string> argv{"unshare", "--mount", "--propagation", "private",
                                "sh",      "-c",      script};
  argv.insert(argv.end(), command.begin(), command.end());
  return test::run_command(argv, std::chrono::seconds(60));
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(RecordTracepoint, WorksWhereNoTracefsIsMountedAndLeavesTheMountsAsTheyWere) {
  if (auto why = missing_prerequisite(perf_scope::tracepoint)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("fresh.data");
  std::vector<std::string> command{dir.file("mounts")};  // $0: where the mount tables go
  for (std::string& arg :
       rec.command({"-e", "sched:sched_switch", "-a", "-o", data, "--", "sleep", "0.2"}))
    command.push_back(std::move(arg));
  test::command_result run = record_without_tracefs("", command);
  ASSERT_NE(run.exit_code, 77) << run.describe();
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();
  if (rec.is_arec()) {  // perf mounts tracefs on /sys/kernel/tracing and leaves it there
    EXPECT_EQ(file_text(dir.file("mounts.after")), file_text(dir.file("mounts.before")));
  }

  test::command_result script = test::run_command({"perf", "script", "-i", data});
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  EXPECT_NE(script.out.find("prev_comm="), std::string::npos) << script.out.substr(0, 2000);
}

TEST(RecordTracepoint, WithoutTheRightToMountTracefsSaysHowToMountIt) {
  recorder rec = recorder::from_environment();
  if (!rec.is_arec()) GTEST_SKIP() << "arec's own message";
  test::temp_dir dir;
  std::vector<std::string> command{dir.file("mounts")};
  for (std::string& arg :
       rec.command({"-e", "sched:sched_switch", "-a", "-o", dir.file("none.data"), "--", "true"}))
    command.push_back(std::move(arg));
  test::command_result run =
      record_without_tracefs("setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin", command);
  ASSERT_NE(run.exit_code, 77) << run.describe();
  EXPECT_EQ(run.exit_code, 2) << run.describe();
  EXPECT_EQ(run.err,
            "arec: error: -e sched:sched_switch: tracefs is not mounted and arec cannot mount it "
            "(fsopen tracefs: Operation not permitted); mount it with: mount -t tracefs nodev "
            "/sys/kernel/tracing\n");
  EXPECT_EQ(file_text(dir.file("mounts.after")), file_text(dir.file("mounts.before")));
}

}  // namespace
}  // namespace arec::e2e
