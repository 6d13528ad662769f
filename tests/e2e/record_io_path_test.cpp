// Which write path a recording takes: io_uring silently when the kernel allows it, else plain
// writes after exactly one notice line, with a complete recording either way.
#include <gtest/gtest.h>
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include "env_command.hpp"
#include "io/unique_fd.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "recording_check.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view notice_start = "arec: io_uring is unavailable (";
constexpr std::string_view notice_end = "); writing with plain writes";

// How many lines of `text` are the fallback notice, checking each one's whole form.
std::size_t notice_lines(const std::string& text) {
  std::size_t count = 0, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (line.starts_with(notice_start)) {
      EXPECT_TRUE(line.ends_with(notice_end)) << line;
      EXPECT_GT(line.size(), notice_start.size() + notice_end.size())
          << "no reason given: " << line;
      ++count;
    }
    start = end + 1;
  }
  return count;
}

// Why io_uring cannot be set up here, or nullopt when it can.
std::optional<std::string> io_uring_unavailable() {
  io_uring_params params{};
  long fd = ::syscall(__NR_io_uring_setup, 4, &params);
  if (fd < 0) return std::string("io_uring_setup: ") + std::strerror(errno);
  io::unique_fd owner{static_cast<int>(fd)};
  return std::nullopt;
}

std::vector<std::string> workload_args(const std::string& out) {
  return {"-o", out, "-F", "1000", "--", test_program("hot_loop"), "300"};
}

std::vector<std::string> threads_args(const std::string& out) {
  return {"--threads=cpu", "-a", "-o", out, "-F", "1000", "--", test_program("hot_loop"), "300"};
}

class RecordIoPath : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rec_.is_arec()) GTEST_SKIP() << "arec's write paths";
    if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  }
  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
};

TEST_F(RecordIoPath, ForcedPlainWritesSayItOnceAndRecordEverything) {
  const std::string out = dir_.file("plain.data");
  test::command_result run = test::run_command(
      env_command({"AREC_FORCE_PLAIN_IO=1"}, rec_.command(workload_args(out))), 60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(notice_lines(run.err), 1u) << run.err;
  check_recording(out, run);
}

TEST_F(RecordIoPath, ForcedPlainWritesWithThreadsSayItOnceForAllThreads) {
  const std::string out = dir_.file("plain-threads.data");
  test::command_result run = test::run_command(
      env_command({"AREC_FORCE_PLAIN_IO=1"}, rec_.command(threads_args(out))), 60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(notice_lines(run.err), 1u) << run.err;
  check_threaded_recording(out, run);
}

TEST_F(RecordIoPath, UringWritesPrintNoNotice) {
  if (auto why = io_uring_unavailable()) GTEST_SKIP() << *why;
  for (bool threads : {false, true}) {
    SCOPED_TRACE(threads ? "--threads=cpu" : "one file");
    const std::string out = dir_.file(threads ? "uring-threads.data" : "uring.data");
    test::command_result run = test::run_command(
        env_command({"-u", "AREC_FORCE_PLAIN_IO"},
                    rec_.command(threads ? threads_args(out) : workload_args(out))),
        60s);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_EQ(run.err.find("io_uring"), std::string::npos) << run.err;
    if (threads)
      check_threaded_recording(out, run);
    else
      check_recording(out, run);
  }
}

// A container whose seccomp profile blocks io_uring: arec says so once and records anyway.
TEST_F(RecordIoPath, FallsBackWhenSeccompBlocksIoUring) {
  const std::string out = dir_.file("seccomp.data");
  std::vector<std::string> command{test_program("without_io_uring")};
  for (std::string& arg : rec_.command(workload_args(out))) command.push_back(std::move(arg));
  test::command_result run =
      test::run_command(env_command({"-u", "AREC_FORCE_PLAIN_IO"}, command), 60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(notice_lines(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("Operation not permitted"), std::string::npos) << run.err;
  check_recording(out, run);
}

}  // namespace
}  // namespace arec::e2e
