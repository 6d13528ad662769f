// Signals at any moment of a recording. Whatever arrives, whenever (from arec's first
// instruction to its exit), the file on disk is one perf reads without salvage, and no process
// of arec's outlives it. Each case is tried many times at delays spread over start-up, where
// events are opened, rings mapped, the file created and what runs synthesized.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "io/dir_reader.hpp"
#include "io/unique_fd.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

constexpr int tries = 40;
// An instrumented arec takes several times longer per try: every fourth try, over the same
// spread of delays, keeps every part of start-up and stop covered in a quarter of the time (the
// release configuration runs every try).
const int try_step = arec_is_sanitized() ? 4 : 1;
// Try i waits i * 4 ms: 0 to 156 ms, past the end of start-up even on a busy machine.
std::chrono::milliseconds delay_of(int attempt) {
  return attempt * 4ms;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Whether any process's command line mentions `marker` (a fork of arec held before its exec
// has arec's command line, which names the test's unique output path).
bool process_mentioning(const std::string& marker) {
  io::dir_reader proc{io::unique_fd::open("/proc", O_RDONLY | O_DIRECTORY)};
  while (auto entry = proc.next()) {
    if (entry->name.find_first_not_of("0123456789") != std::string_view::npos) continue;
    std::ifstream in("/proc/" + std::string(entry->name) + "/cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(marker) != std::string::npos) return true;
  }
  return false;
}

// A held workload exits when arec dies, at once but not synchronously with arec's exit: give
// it a deadline, not a sleep.
bool no_process_mentions(const std::string& marker) {
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (process_mentioning(marker))
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    else
      std::this_thread::yield();
  return true;
}

// What one try must leave: a file that perf script reads without complaint, unless arec died
// of `sent` before it could catch it (the dynamic loader's few microseconds before main) and
// created nothing. (It may also die of a second stop signal while it waits for a workload that
// does not end, but only once the file is complete.)
void expect_complete_or_nothing(const test::command_result& run, int sent,
                                const std::string& data, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_FALSE(run.timed_out) << run.describe();
  if (run.term_signal != 0) {
    EXPECT_EQ(run.term_signal, sent) << run.describe();
    if (!exists(data)) return;
  }
  ASSERT_TRUE(exists(data)) << run.describe();
  perf_script script = run_perf_script(data);
  EXPECT_EQ(script.run.exit_code, 0) << script.run.describe() << "\narec: " << run.describe();
  EXPECT_EQ(script.run.err.find("WARNING"), std::string::npos) << script.run.err;
  EXPECT_EQ(script.run.err.find("rror"), std::string::npos) << script.run.err;
}

class RecordSignals : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rec_.is_arec()) GTEST_SKIP() << "arec's own guarantees";
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  }
  // Records `sleep 30` into a fresh file, sends what `deliver` sends after `delay`, and checks
  // the outcome and that no process of the recording is left.
  void try_once(int attempt, const std::vector<std::string>& extra, int sent,
                const std::function<void(test::child_process&)>& deliver) {
    const std::string data = dir_.file("try-" + std::to_string(attempt) + ".data");
    std::vector<std::string> args{"-o", data};
    args.insert(args.end(), extra.begin(), extra.end());
    for (const char* arg : {"--", "sleep", "30"}) args.emplace_back(arg);
    test::child_process recording = test::child_process::spawn(rec_.command(args));
    std::this_thread::sleep_for(delay_of(attempt));
    deliver(recording);
    test::command_result run = recording.wait_without_group_kill(30s);
    std::string what = "try " + std::to_string(attempt) + " at " +
                       std::to_string(delay_of(attempt).count()) + " ms";
    expect_complete_or_nothing(run, sent, data, what);
    EXPECT_TRUE(no_process_mentions(data)) << what << ": a process of arec's outlived it";
  }

  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
};

TEST_F(RecordSignals, OneInterruptAtAnyMomentLeavesACompleteFile) {
  for (int attempt = 0; attempt < tries && !HasFailure(); attempt += try_step)
    try_once(attempt, {}, SIGINT, [](test::child_process& arec) { arec.send_signal(SIGINT); });
}

TEST_F(RecordSignals, TerminationAtAnyMomentLeavesACompleteFile) {
  for (int attempt = 0; attempt < tries && !HasFailure(); attempt += try_step)
    try_once(attempt, {"-a"}, SIGTERM,
             [](test::child_process& arec) { arec.send_signal(SIGTERM); });
}

// A second Ctrl-C a few milliseconds after the first must not cut the file being finished.
TEST_F(RecordSignals, TwoQuickInterruptsLeaveACompleteFile) {
  for (int attempt = 0; attempt < tries && !HasFailure(); attempt += try_step)
    try_once(attempt, {}, SIGINT, [attempt](test::child_process& arec) {
      arec.send_signal(SIGINT);
      std::this_thread::sleep_for(std::chrono::milliseconds(attempt % 6));
      arec.send_signal(SIGINT);
    });
}

// `timeout -s INT` and a terminal's Ctrl-C: the signal reaches arec and then its whole process
// group, the workload held before its exec included.
TEST_F(RecordSignals, InterruptToTheProcessGroupLeavesACompleteFile) {
  for (int attempt = 0; attempt < tries && !HasFailure(); attempt += try_step)
    try_once(attempt, {"-a"}, SIGINT, [](test::child_process& arec) {
      arec.send_signal(SIGINT);
      arec.send_signal_to_group(SIGINT);
    });
}

// perf's rotation signal: without --switch-output arec says so and records on.
TEST_F(RecordSignals, SwitchSignalAtAnyMomentIsIgnoredAndRecordingGoesOn) {
  for (int attempt = 0; attempt < tries && !HasFailure(); attempt += 4)
    try_once(attempt, {}, SIGUSR2, [](test::child_process& arec) {
      arec.send_signal(SIGUSR2);
      arec.send_signal(SIGINT);
    });
}

TEST_F(RecordSignals, SwitchSignalWhileRecordingIsNamedAsIgnored) {
  const std::string data = dir_.file("usr2.data");
  test::child_process recording =
      test::child_process::spawn(rec_.command({"-v", "-o", data, "--", "sleep", "30"}));
  ASSERT_TRUE(recording.wait_for_stderr("arec: recording started\n", 30s));
  recording.send_signal(SIGUSR2);
  ASSERT_TRUE(recording.wait_for_stderr("arec: SIGUSR2 ignored", 30s));
  recording.send_signal(SIGINT);
  test::command_result run = recording.wait(30s);
  EXPECT_EQ(run.term_signal, 0) << run.describe();
  EXPECT_NE(run.err.find("arec: SIGUSR2 ignored: switch output files with --switch-output\n"),
            std::string::npos)
      << run.err;
  expect_complete_or_nothing(run, SIGINT, data, "SIGUSR2 while recording");
}

// `arec ... 2>&1 | head`: the reader of arec's messages goes away (here, before arec starts).
// perf 6.1 dies of SIGPIPE at its next message, its file unfinished; arec drops the messages
// and finishes the file, and the workload still gets SIGPIPE's default action, as under perf.
TEST_F(RecordSignals, AStderrReaderThatWentAwayNeitherKillsTheRecordingNorChangesTheWorkload) {
  const std::string data = dir_.file("stderr-gone.data");
  const std::string workload_ignores = dir_.file("workload-ignores");
  // cycles: where there is no PMU, the fall-back note is a message at start-up too.
  std::vector<std::string> argv =
      rec_.command({"-e", "cycles", "-o", data, "--", "sh", "-c",
                    "grep ^SigIgn: /proc/self/status > " + workload_ignores + "; sleep 0.2"});
  std::vector<char*> args;  // made before the fork: the child only calls dup2 and execv
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ::close(fds[0]);  // nobody will read arec's stderr
  io::unique_fd write_end{fds[1]};
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::dup2(write_end.get(), STDERR_FILENO) < 0) ::_exit(126);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ASSERT_GT(pid, 0);
  write_end.reset();
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_FALSE(WIFSIGNALED(status)) << "arec died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  perf_script script = run_perf_script(data);
  EXPECT_EQ(script.run.exit_code, 0) << script.run.describe();
  EXPECT_EQ(script.run.err.find("WARNING"), std::string::npos) << script.run.err;
  std::ifstream ignores(workload_ignores);
  std::string line;
  ASSERT_TRUE(std::getline(ignores, line)) << "the workload did not run";
  std::uint64_t ignored_mask = std::stoull(line.substr(line.find_last_of(" \t") + 1), nullptr, 16);
  EXPECT_EQ(ignored_mask & (std::uint64_t{1} << (SIGPIPE - 1)), 0u)
      << "the workload ignores SIGPIPE: " << line;
}

// kill -9 cannot be caught: the file stays salvageable (record_failure_test.cpp), and a workload
// still held before its exec must not live on, blocked, reparented to init.
TEST_F(RecordSignals, KillNineAtStartUpLeavesNoHeldWorkload) {
  for (int attempt = 0; attempt < tries && !HasFailure(); attempt += try_step) {
    const std::string data = dir_.file("killed-" + std::to_string(attempt) + ".data");
    test::child_process recording =
        test::child_process::spawn(rec_.command({"-o", data, "--", "sleep", "30"}));
    std::this_thread::sleep_for(delay_of(attempt) / 2);
    recording.send_signal(SIGKILL);
    // Only arec, not its group: a released `sleep` may run on, as under perf, but a held fork
    // of arec (its command line names `data`) must end with it.
    test::command_result run = recording.wait_without_group_kill(30s);
    EXPECT_EQ(run.term_signal, SIGKILL) << run.describe();
    EXPECT_TRUE(no_process_mentions(data))
        << "try " << attempt << ": a held workload outlived arec";
    ::kill(-recording.pid(), SIGKILL);  // a released `sleep 30`; ESRCH when there is none
  }
}

}  // namespace
}  // namespace arec::e2e
