// workload: the command arec runs and records. It is forked early and held before exec until
// the events that follow it are open, so that enable_on_exec counts from its first instruction.
// A held workload never outlives arec: it exits when arec dies before releasing it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <span>
#include <stdexcept>
#include <string>

#include "io/unique_fd.hpp"

namespace arec::record {

// The workload could not be started; arec exits 127 as a shell does.
class workload_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class workload {
 public:
  // Forks the child; it waits for start() before it execs `argv` (searched in PATH). With
  // `stdout_to_stderr` its standard output is arec's standard error.
  static workload prepare(std::span<const std::string> argv, bool stdout_to_stderr = false);
  workload(workload&&) noexcept;
  workload& operator=(workload&&) = delete;
  ~workload();

  pid_t pid() const { return pid_; }
  // A pidfd that becomes readable when the child exits.
  int exit_fd() const { return exit_fd_.get(); }
  // Releases the child to exec; throws workload_error naming the command when exec failed.
  // A child that already died is not an error. SIGPIPE must be ignored (a recording ignores
  // it: host::stop_signals::ignore_broken_pipe), or releasing such a child kills the caller.
  void start();
  // Asks the child to end (SIGTERM), as perf does when the recording is stopped early.
  void terminate() const;
  // True when the child exits within `timeout` (it is not reaped yet).
  bool exits_within(std::chrono::milliseconds timeout) const;
  // Blocks until the child exits (true) or `wake_fd` becomes readable (false).
  bool exits_before(int wake_fd) const;
  // Reaps the child: its exit code, or 128 + the signal that killed it.
  int wait();

 private:
  workload(pid_t pid, io::unique_fd go, io::unique_fd exec_error, io::unique_fd exit_fd,
           std::string command)
      : pid_(pid),
        go_(std::move(go)),
        exec_error_(std::move(exec_error)),
        exit_fd_(std::move(exit_fd)),
        command_(std::move(command)) {}

  pid_t pid_ = -1;
  io::unique_fd go_;          // written to release the child
  io::unique_fd exec_error_;  // the child's errno if exec failed; EOF when exec succeeded
  io::unique_fd exit_fd_;
  std::string command_;
  bool reaped_ = false;
};

}  // namespace arec::record
