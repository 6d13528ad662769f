// Bad input and refused resources: one line naming what is wrong, a clear exit status, and no
// file created, because everything that can be refused is asked for before the first file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

constexpr const char* unprivileged_uid = "65534";

class RecordBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rec_.is_arec()) GTEST_SKIP() << "arec's own messages";
    // World-writable, so "no file was created" cannot hold just because creating one failed.
    ASSERT_EQ(::chmod(dir_.path().c_str(), 0777), 0);
  }

  test::command_result record(std::vector<std::string> args) {
    return test::run_command(rec_.command(std::move(args)), 30s);
  }
  // Runs arec as an unprivileged user (and with `limits`, prlimit options, if any).
  test::command_result record_unprivileged(std::vector<std::string> limits,
                                           std::vector<std::string> args) {
    std::vector<std::string> command{"setpriv", "--reuid", unprivileged_uid, "--regid",
                                     unprivileged_uid, "--clear-groups", "--"};
    if (!limits.empty()) {
      command.push_back("prlimit");
      command.insert(command.end(), limits.begin(), limits.end());
      command.push_back("--");
    }
    for (std::string& arg : rec_.command(std::move(args))) command.push_back(std::move(arg));
    return test::run_command(command, 30s);
  }
  void expect_one_error_line_and_no_file(const test::command_result& run, const std::string& data) {
    EXPECT_EQ(run.err.find("arec: error: "), run.err.rfind("arec: error: ")) << run.err;
    EXPECT_NE(::access(data.c_str(), F_OK), 0) << data << " was created";
  }

  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
};

TEST_F(RecordBadInput, UnknownEventExitsTwoNamingIt) {
  const std::string data = dir_.file("x.data");
  test::command_result run = record({"-e", "no-such-event", "-o", data, "--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.describe();
  EXPECT_NE(run.err.find("arec: error: -e no-such-event: unknown event 'no-such-event'"),
            std::string::npos)
      << run.err;
  expect_one_error_line_and_no_file(run, data);
}

TEST_F(RecordBadInput, MissingTracepointExitsTwoNamingIt) {
  const std::string data = dir_.file("x.data");
  test::command_result run =
      record({"-e", "sched:no_such_tracepoint", "-a", "-o", data, "--", "true"});
  EXPECT_EQ(run.exit_code, 2) << run.describe();
  EXPECT_NE(run.err.find("sched:no_such_tracepoint"), std::string::npos) << run.err;
  expect_one_error_line_and_no_file(run, data);
}

int paranoid_level() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int level = 2;
  in >> level;
  return level;
}

TEST_F(RecordBadInput, ParanoidRefusalNamesTheSysctlAndTheValueNeeded) {
  if (paranoid_level() <= 0)
    GTEST_SKIP() << "perf_event_paranoid <= 0 lets an unprivileged user record system-wide";
  const std::string data = dir_.file("x.data");
  test::command_result run = record_unprivileged({}, {"-a", "-o", data, "--duration", "0.1"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_NE(run.err.find("kernel.perf_event_paranoid is " + std::to_string(paranoid_level()) +
                         "; this recording needs 0 or less"),
            std::string::npos)
      << run.err;
  expect_one_error_line_and_no_file(run, data);
}

// A switch is sampled in kernel context: where the user may sample only user space, --off-cpu
// would record nothing. That is said before anything is recorded, not found in an empty file.
TEST_F(RecordBadInput, OffCpuWithoutKernelSamplesIsRefusedBeforeRecording) {
  if (paranoid_level() < 2) GTEST_SKIP() << "perf_event_paranoid < 2 lets a user sample kernels";
  const std::string data = dir_.file("x.data");
  test::command_result run =
      record_unprivileged({}, {"--off-cpu", "-o", data, "--", test_program("hot_loop"), "100"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_NE(run.err.find("--off-cpu: kernel.perf_event_paranoid=" +
                         std::to_string(paranoid_level()) +
                         " forbids the kernel samples a context switch gives"),
            std::string::npos)
      << run.err;
  expect_one_error_line_and_no_file(run, data);
}

TEST_F(RecordBadInput, LockedMemoryLimitNamesTheRingSize) {
  if (paranoid_level() > 2) GTEST_SKIP() << "perf_event_paranoid > 2 forbids unprivileged use";
  const std::string data = dir_.file("x.data");
  // Ring pages beyond kernel.perf_event_mlock_kb (516 KiB per online cpu by default) are
  // charged to RLIMIT_MEMLOCK, here 0: 256 data pages per cpu exceed the allowance.
  test::command_result run =
      record_unprivileged({"--memlock=0:0"}, {"-m", "256", "-o", data, "--", "true"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_NE(run.err.find("each ring needs 1028 KiB of locked memory"), std::string::npos)
      << run.err;
  expect_one_error_line_and_no_file(run, data);
}

// The other side of paranoid 2: a user may profile their own workload in user space, as perf
// lets them, with one notice instead of an error.
TEST_F(RecordBadInput, UnprivilegedWorkloadIsRecordedInUserSpaceOnly) {
  if (paranoid_level() != 2) GTEST_SKIP() << "the user-space fallback is for perf_event_paranoid 2";
  const std::string data = dir_.file("user.data");
  test::command_result run =
      record_unprivileged({}, {"-F", "1000", "-o", data, "--", test_program("hot_loop"), "1000"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_NE(run.err.find("recording user space only"), std::string::npos) << run.err;
  // perf reads only files of its own user (or root): the test, root, takes the file over.
  ASSERT_EQ(::chown(data.c_str(), ::geteuid(), ::getegid()), 0) << std::strerror(errno);
  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  sample_share hot = share_in(script.samples, "hot_function", "hot_loop",
                              [](const script_sample& s) { return s.comm == "hot_loop"; });
  ASSERT_GE(hot.total, 100u) << excerpt(script.run.out);
  EXPECT_GE(hot.fraction(), 0.9) << hot.matching << " of " << hot.total;
}

}  // namespace
}  // namespace arec::e2e
