// child_process: one command run by a test (perf reading a written file, the recorder under
// test), in its own process group, with its stdout and stderr captured through pipes and a
// deadline on everything we wait for.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "io/unique_fd.hpp"

namespace arec::test {

// How a command ended and what it printed.
struct command_result {
  int exit_code = -1;      // the status passed to exit(), or -1 when killed by a signal
  int term_signal = 0;     // the signal that killed it, or 0 when it exited
  bool timed_out = false;  // we killed it because the deadline passed
  std::chrono::milliseconds elapsed{0};
  std::string out;
  std::string err;
  // When it timed out: each of its threads' name, state, wait channel and kernel stack, taken
  // before it was killed, so that a hang seen once in CI says where it was.
  std::string hang_snapshot;

  // "exit 3", "signal 2 (Interrupt)" or "timed out", plus stderr (and the hang snapshot): for
  // assertion messages.
  std::string describe() const;
};

class child_process {
 public:
  // Starts argv[0] (looked up in PATH when it has no slash) with stdin at end of file, default
  // signal dispositions, an empty signal mask and a new process group. Throws std::system_error
  // when the pipes or the spawn fail (a missing program is an error here, not a result).
  static child_process spawn(const std::vector<std::string>& argv);
  // The same, and the child inherits `inherited` (the test's fds, close-on-exec or not) under
  // the same numbers: for a recorder told to use them (--control fd:N).
  static child_process spawn(const std::vector<std::string>& argv,
                             const std::vector<int>& inherited);

  child_process(child_process&& other) noexcept;
  child_process& operator=(child_process&&) = delete;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  // Kills the whole process group and reaps the child if wait() did not.
  ~child_process();

  pid_t pid() const noexcept { return pid_; }

  // Reads stdout up to and including the first newline, within `timeout`; nullopt when the
  // child closed stdout or the time ran out first. What was read stays part of the result.
  std::optional<std::string> read_stdout_line(std::chrono::milliseconds timeout);

  // Whether the child has exited (it is reaped then); never blocks.
  bool has_exited() { return try_reap(false); }

  // Reads stderr until it holds `text` at or after byte `from` (true) or `timeout` passes or
  // stderr closes (false). What was read stays part of the result.
  bool wait_for_stderr(const std::string& text, std::chrono::milliseconds timeout,
                       std::size_t from = 0);
  // How many bytes of stderr were read so far: a `from` for what comes next.
  std::size_t stderr_read() const noexcept { return err_.size(); }
  // What stderr said so far (what wait_for_stderr read).
  const std::string& stderr_so_far() const noexcept { return err_; }

  // Sends `signal` to the child alone (not its process group), as `kill -SIG PID` would.
  void send_signal(int signal) const;
  // Sends `signal` to the child's whole process group, as a terminal's Ctrl-C does.
  void send_signal_to_group(int signal) const;

  // Collects output until the child exits and closes its pipes, or `timeout` passes; then
  // SIGKILLs the process group (on timeout) and reaps the child. Call at most once.
  command_result wait(std::chrono::milliseconds timeout);
  // The same, except that what is left of the process group after the child exited is not
  // killed: for tests that check that nothing of the child's outlives it.
  command_result wait_without_group_kill(std::chrono::milliseconds timeout);

 private:
  child_process(pid_t pid, io::unique_fd out, io::unique_fd err);
  // Waits up to `max_wait` for pipe data and appends what is ready; returns the bytes read.
  std::size_t pump(std::chrono::milliseconds max_wait);
  // Reaps the child if it has exited (blocking only when `block`); returns whether reaped.
  bool try_reap(bool block);
  void kill_group() const noexcept;
  command_result wait(std::chrono::milliseconds timeout, bool kill_group_after);

  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;  // from waitpid, valid once reaped_
  std::chrono::steady_clock::time_point started_;
  io::unique_fd out_fd_;
  io::unique_fd err_fd_;
  std::string out_;
  std::string err_;
  std::size_t out_consumed_ = 0;  // bytes of out_ already returned by read_stdout_line
};

// Runs argv to completion (or `timeout`) and returns how it ended.
command_result run_command(const std::vector<std::string>& argv,
                           std::chrono::milliseconds timeout = std::chrono::seconds(60));

// Whether `perf --version` runs and exits 0: tests that hand a file to perf skip without it.
bool perf_installed();

}  // namespace arec::test
