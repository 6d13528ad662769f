// stop_conditions: what ends a recording, awaited on the control thread's io_context:
// SIGINT/SIGTERM/SIGHUP, --duration, the workload's exit, and the exit of every -p target.
#pragma once

#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "async/readiness.hpp"
#include "io/unique_fd.hpp"

namespace arec::record {

class stop_conditions {
 public:
  // `exit_fds` are pidfds: the recording ends when all of them became readable.
  stop_conditions(asio::io_context& control, std::optional<double> duration_s,
                  std::vector<int> exit_fds);
  // The signal that stopped the recording, or 0.
  int stopping_signal() const { return stopping_signal_; }
  // Gives the stop signals back to their default action: a second Ctrl-C ends arec at once.
  void release_signals();

 private:
  asio::io_context& control_;
  asio::signal_set signals_;
  asio::steady_timer timer_;
  std::vector<std::unique_ptr<async::readiness>> watched_;
  std::size_t exited_ = 0;
  int stopping_signal_ = 0;

  friend async::task<void> await_exit(stop_conditions& stop, async::readiness& exit);
};

// Opens a pidfd for each of `pids`; a process that is already gone yields none.
std::vector<io::unique_fd> open_pidfds(const std::vector<int>& pids);

}  // namespace arec::record
