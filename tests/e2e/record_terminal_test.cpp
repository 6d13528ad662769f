// What a recording says on stderr: a status line redrawn on a terminal and erased before the
// summary, nothing of it on a pipe, and a loss hint that appears exactly when samples were lost.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "arec_summary.hpp"
#include "io/unique_fd.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

struct terminal_run {
  int exit_code = -1;
  std::string shown;  // everything written to the terminal, "\r\n" turned back into "\n"
};

// Runs argv with stderr on a fresh pseudo-terminal (stdin and stdout on /dev/null) and
// collects what reaches the terminal until the program exits or `timeout` passes.
terminal_run run_on_terminal(const std::vector<std::string>& argv, std::chrono::seconds timeout) {
  int master_fd = -1;
  int slave_fd = -1;
  winsize size{};
  size.ws_col = 200;
  size.ws_row = 24;
  if (::openpty(&master_fd, &slave_fd, nullptr, nullptr, &size) != 0)
    throw std::system_error(errno, std::generic_category(), "openpty");
  io::unique_fd master(master_fd);
  io::unique_fd slave(slave_fd);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) {  // only async-signal-safe calls from here to exec
    int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(slave_fd, 2);
    ::close(master_fd);
    ::setpgid(0, 0);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  slave = io::unique_fd();  // the master then reads EIO once the child's side is gone
  terminal_run run;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) {
      ::kill(-pid, SIGKILL);
      break;
    }
    pollfd entry{master.get(), POLLIN, 0};
    if (::poll(&entry, 1, static_cast<int>(left.count())) <= 0) continue;
    ssize_t n = ::read(master.get(), buffer, sizeof buffer);
    if (n <= 0) break;  // EIO: every holder of the slave side closed it
    run.shown.append(buffer, static_cast<std::size_t>(n));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  for (std::size_t at = run.shown.find("\r\n"); at != std::string::npos;
       at = run.shown.find("\r\n", at))
    run.shown.erase(at, 1);
  return run;
}

class RecordTerminal : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rec_.is_arec()) GTEST_SKIP() << "arec's own status line";
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  }
  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
};

constexpr std::string_view erase_line = "\r\x1b[K";

TEST_F(RecordTerminal, StatusLineIsRedrawnWhileRecordingAndErasedBeforeTheSummary) {
  const std::string out = dir_.file("shown.data");
  const auto started = std::chrono::steady_clock::now();
  terminal_run run = run_on_terminal(
      rec_.command({"-o", out, "-F", "1000", "--", test_program("hot_loop"), "1600"}), 60s);
  const auto lasted = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(run.exit_code, 0) << run.shown;
  std::size_t first = run.shown.find("\rarec: ");
  ASSERT_NE(first, std::string::npos) << "no status line drawn:\n" << run.shown;
  std::size_t last = run.shown.rfind("fullest ring ");
  ASSERT_NE(last, std::string::npos) << run.shown;
  EXPECT_NE(run.shown.find(" samples | ", first), std::string::npos) << run.shown;
  EXPECT_NE(run.shown.find(" written | ", first), std::string::npos) << run.shown;
  EXPECT_NE(run.shown.find(" lost | ", first), std::string::npos) << run.shown;
  // 1.6 s of CPU or more (a busy machine stretches it) at one redraw every 500 ms: at least
  // two redraws, and no more than the run's own length allows.
  std::size_t draws = 0;
  for (std::size_t at = run.shown.find("fullest ring "); at != std::string::npos;
       at = run.shown.find("fullest ring ", at + 1))
    ++draws;
  const auto most = static_cast<std::size_t>(lasted / 500ms) + 1;
  EXPECT_GE(draws, 2u) << run.shown;
  EXPECT_LE(draws, most) << "at most twice a second:\n" << run.shown;
  // Erased, and the summary starts on the clean line.
  std::size_t erased = run.shown.find(erase_line, last);
  ASSERT_NE(erased, std::string::npos) << run.shown;
  std::string after = run.shown.substr(erased + erase_line.size());
  EXPECT_TRUE(after.starts_with("arec: ")) << after;
  EXPECT_EQ(after.find('\r'), std::string::npos) << after;
  std::optional<arec_summary> summary = find_arec_summary(after);
  ASSERT_TRUE(summary) << after;
  EXPECT_EQ(summary->path, out);
  EXPECT_GT(summary->samples, 0u);
}

TEST_F(RecordTerminal, QuietShowsNoStatusLine) {
  terminal_run run = run_on_terminal(
      rec_.command({"-q", "-o", dir_.file("quiet.data"), "--", test_program("hot_loop"), "1200"}),
      60s);
  ASSERT_EQ(run.exit_code, 0) << run.shown;
  EXPECT_EQ(run.shown, "");
}

TEST_F(RecordTerminal, WithoutATerminalStderrHoldsOnlyTheSummary) {
  const std::string out = dir_.file("piped.data");
  test::command_result run =
      test::run_command(rec_.command({"-e", "cpu-clock", "-o", out, "-F", "1000", "--",
                                      test_program("hot_loop"), "1200"}),
                        60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(run.err.find('\r'), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\x1b'), std::string::npos) << run.err;
  std::optional<arec_summary> summary = find_arec_summary(run.err);
  ASSERT_TRUE(summary) << run.err;
  std::string expected = "arec: " + std::to_string(summary->samples) + " samples, 0 lost, " +
                         std::to_string(summary->bytes) + " bytes written to " + out + "\n" +
                         "arec: look at it with 'perf report -i " + out + "' or 'arec report -i " +
                         out + "' (a page for any browser), or for hotspot: 'arec convert -i " +
                         out + " -o " +
                         dir_.file("piped.converted.data") + "' then 'hotspot " +
                         dir_.file("piped.converted.data") + "'\n";
  EXPECT_EQ(run.err, expected);
}

TEST_F(RecordTerminal, ConvertShowsAProgressBarAndErasesIt) {
  const std::string data = dir_.file("bar.data");
  const std::string converted = dir_.file("bar.perf.data");
  test::command_result recorded = test::run_command(
      rec_.command({"-q", "-o", data, "--", test_program("hot_loop"), "300"}), 60s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  terminal_run run = run_on_terminal({arec_binary(), "convert", "-i", data, "-o", converted}, 60s);
  ASSERT_EQ(run.exit_code, 0) << run.shown;
  std::size_t bar = run.shown.find("\rarec: converting [");
  ASSERT_NE(bar, std::string::npos) << run.shown;
  EXPECT_NE(run.shown.find("] 100% ", bar), std::string::npos) << "the last update is the end:\n"
                                                               << run.shown;
  std::size_t erased = run.shown.find(erase_line, bar);
  ASSERT_NE(erased, std::string::npos) << run.shown;
  EXPECT_TRUE(run.shown.substr(erased + erase_line.size()).starts_with("arec: converted "))
      << run.shown;

  test::command_result piped =
      test::run_command({arec_binary(), "convert", "-i", data, "-o", converted}, 60s);
  ASSERT_EQ(piped.exit_code, 0) << piped.describe();
  EXPECT_TRUE(piped.err.starts_with("arec: converted ")) << piped.err;
  EXPECT_EQ(piped.err.find('\r'), std::string::npos) << piped.err;
}

// The voluntary context switches of `pid` so far (0 once it is gone).
std::uint64_t context_switches(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("voluntary_ctxt_switches:")) return std::stoull(line.substr(24));
  return 0;
}

// arec's workload: the one child of its main thread.
int workload_of(int recorder) {
  std::string path = "/proc/" + std::to_string(recorder) + "/task/" + std::to_string(recorder) +
                     "/children";
  int child = 0;
  std::ifstream(path) >> child;
  return child;
}

// A 4 KiB ring that is not drained while a pipe ping-pong switches tasks thousands of times must
// lose. arec is stopped (SIGSTOP) until the workload has switched 2000 times, an observable
// state, so the loss does not depend on how fast this machine drains; the ping-pong goes on after
// SIGCONT, so the kernel has records to put its LOST count in front of.
TEST_F(RecordTerminal, LossHintAppearsWhenSamplesWereLostAndOnlyThen) {
  if (auto why = missing_prerequisite(perf_scope::tracepoint)) GTEST_SKIP() << *why;
  const std::string out = dir_.file("flood.data");
  test::child_process recording = test::child_process::spawn(
      rec_.command({"-v", "-e", "sched:sched_switch", "-a", "-m", "1", "-o", out, "--", "perf",
                    "bench", "sched", "pipe", "-l", "200000"}));
  ASSERT_TRUE(recording.wait_for_stderr("arec: recording started\n", 60s));
  recording.send_signal(SIGSTOP);
  int workload = workload_of(recording.pid());
  ASSERT_GT(workload, 0) << "no workload under arec";
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (context_switches(workload) < 2000 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  recording.send_signal(SIGCONT);
  test::command_result flood = recording.wait(120s);
  ASSERT_EQ(flood.exit_code, 0) << flood.describe();
  std::optional<arec_summary> summary = find_arec_summary(flood.err);
  ASSERT_TRUE(summary) << flood.err;
  ASSERT_GT(summary->lost, 0u) << "the flood lost nothing, the hint cannot be checked:\n"
                               << flood.err;
  EXPECT_NE(flood.err.find("arec: " + std::to_string(summary->lost) +
                           " samples lost; to lose fewer:\n"
                           "arec:   use bigger ring buffers: -m 512 (now 1 page per cpu)\n"),
            std::string::npos)
      << flood.err;
  EXPECT_NE(flood.err.find(" samples (the ring was full)\n"), std::string::npos) << flood.err;
  EXPECT_EQ(flood.err.find("less often"), std::string::npos)
      << "-F does not thin out a tracepoint:\n"
      << flood.err;

  test::command_result calm =
      test::run_command(rec_.command({"-e", "sched:sched_switch", "-a", "-o",
                                      dir_.file("calm.data"), "--", "sleep", "0.3"}),
                        60s);
  ASSERT_EQ(calm.exit_code, 0) << calm.describe();
  std::optional<arec_summary> calm_summary = find_arec_summary(calm.err);
  ASSERT_TRUE(calm_summary) << calm.err;
  ASSERT_EQ(calm_summary->lost, 0u) << calm.err;
  EXPECT_EQ(calm.err.find("to lose fewer"), std::string::npos) << calm.err;
  EXPECT_EQ(calm.err.find("(the ring was full)"), std::string::npos) << calm.err;
}

}  // namespace
}  // namespace arec::e2e
