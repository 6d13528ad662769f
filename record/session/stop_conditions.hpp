// stop_conditions: what ends a recording, awaited on the control thread's io_context: a stop
// signal (SIGINT/SIGTERM/SIGHUP, caught since arec started: host/stop_signals), --duration, the
// exit of the workload, or the exit of every -p/-t target; and SIGUSR2, perf's output switch. With
// both a workload and targets (as in `-p PID -- sleep 5`) whichever ends first ends the recording,
// as in perf.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "async/event_loop.hpp"
#include "async/readiness.hpp"
#include "async/timer.hpp"
#include "io/unique_fd.hpp"

namespace arec::record {

struct stop_sources {
  std::optional<double> duration_s;
  int workload_exit_fd = -1;         // a pidfd, or -1 without a workload
  std::vector<int> target_exit_fds;  // pidfds of the -p targets; all must exit
  // --switch-output (signal mode): what SIGUSR2 does; without it SIGUSR2 is only noted.
  std::function<void()> switch_output;
};

class stop_conditions {
 public:
  // `notice` prints one line (respecting -q): for the SIGUSR2 that arec does not act on yet.
  stop_conditions(async::event_loop& control, stop_sources sources,
                  std::function<void(const std::string&)> notice);
  ~stop_conditions();

 private:
  friend async::task<void> await_signals(stop_conditions& stop);
  friend async::task<void> recheck_signals(stop_conditions& stop);
  // Acts on the signals counted so far; true once a stop signal came (the loop is stopped).
  bool act_on_signals();
  friend async::task<void> await_exit(stop_conditions& stop, async::readiness& exit,
                                      bool is_workload);
  friend async::task<void> await_duration(stop_conditions& stop,
                                          std::chrono::steady_clock::duration duration);

  async::event_loop& control_;
  async::timer timer_;
  async::timer recheck_timer_;
  std::function<void(const std::string&)> notice_;
  std::unique_ptr<async::readiness> signals_;
  std::vector<std::unique_ptr<async::readiness>> watched_;
  std::size_t targets_ = 0;
  std::size_t targets_exited_ = 0;
  std::function<void()> switch_output_;
  unsigned switches_seen_ = 0;
  bool stopping_ = false;
};

// Opens a pidfd for each of `pids`; a process that is already gone yields none.
std::vector<io::unique_fd> open_pidfds(const std::vector<int>& pids);

}  // namespace arec::record
