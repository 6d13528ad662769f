#include "record/session/stop_conditions.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

#include "host/stop_signals.hpp"

namespace arec::record {

bool stop_conditions::act_on_signals() {
  host::stop_signals::arrivals now = host::stop_signals::arrived();
  // One switch per SIGUSR2 counted, so that N signals make N files even when they come
  // faster than a switch takes.
  while (now.switches > switches_seen_ && !stopping_) {
    ++switches_seen_;
    if (switch_output_)
      switch_output_();
    else
      notice_("arec: SIGUSR2 ignored: switch output files with --switch-output");
  }
  if (now.stops > 0 && !stopping_) {
    stopping_ = true;
    control_.stop();
  }
  return stopping_;
}

async::task<void> await_signals(stop_conditions& stop) {
  // Signals that came during start-up are acted on at once.
  bool stopped = stop.act_on_signals();
  while (!stopped) {
    bool woken = co_await stop.signals_->readable();
    if (!woken) co_return;
    host::stop_signals::drain_wakeups();
    stopped = stop.act_on_signals();
  }
  co_return;
}

// The eventfd is watched edge-triggered (Asio's epoll reactor): a signal whose write lands
// while no wait is queued (before the loop first runs, or between a wake and the next wait)
// leaves no edge to wake on. A look at the counters four times a second bounds that case.
async::task<void> recheck_signals(stop_conditions& stop) {
  bool stopped = false;
  while (!stopped) {
    bool elapsed = co_await stop.recheck_timer_.wait_for(std::chrono::milliseconds(250));
    if (!elapsed) co_return;
    stopped = stop.act_on_signals();
  }
  co_return;
}

async::task<void> await_exit(stop_conditions& stop, async::readiness& exit, bool is_workload) {
  // A co_await only ever as an initializer, and an explicit co_return: g++ 12 miscompiles a
  // co_await inside a condition and a coroutine that flows off its end.
  bool exited = co_await exit.readable();
  if (exited && (is_workload || ++stop.targets_exited_ == stop.targets_)) stop.control_.stop();
  co_return;
}

async::task<void> await_duration(stop_conditions& stop,
                                 std::chrono::steady_clock::duration duration) {
  bool elapsed = co_await stop.timer_.wait_for(duration);
  if (elapsed) stop.control_.stop();
  co_return;
}

stop_conditions::stop_conditions(async::event_loop& control, stop_sources sources,
                                 std::function<void(const std::string&)> notice)
    : control_(control),
      timer_(control.get_executor()),
      recheck_timer_(control.get_executor()),
      notice_(std::move(notice)),
      switch_output_(std::move(sources.switch_output)) {
  async::executor on = control.get_executor();
  signals_ = std::make_unique<async::readiness>(on, host::stop_signals::wakeup_fd());
  async::spawn_detached(on, await_signals(*this));
  async::spawn_detached(on, recheck_signals(*this));
  if (sources.duration_s)
    async::spawn_detached(
        on, await_duration(*this, std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(*sources.duration_s))));
  auto watch = [&](int fd, bool is_workload) {
    auto& exit = *watched_.emplace_back(std::make_unique<async::readiness>(on, fd));
    async::spawn_detached(on, await_exit(*this, exit, is_workload));
  };
  if (sources.workload_exit_fd >= 0) watch(sources.workload_exit_fd, true);
  targets_ = sources.target_exit_fds.size();
  for (int fd : sources.target_exit_fds) watch(fd, false);
}

stop_conditions::~stop_conditions() = default;

std::vector<io::unique_fd> open_pidfds(const std::vector<int>& pids) {
  std::vector<io::unique_fd> fds;
  for (int pid : pids) {
    int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (fd >= 0) fds.emplace_back(fd);
  }
  return fds;
}

}  // namespace arec::record
