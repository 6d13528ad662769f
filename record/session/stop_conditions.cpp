#include "record/session/stop_conditions.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

#include "io/stop_signals.hpp"

namespace arec::record {

async::task<void> await_signals(stop_conditions& stop) {
  namespace signals = io::stop_signals;
  // Signals that came during start-up left the eventfd readable: they are acted on at once.
  for (;;) {
    bool woken = co_await stop.signals_->readable();
    if (!woken) co_return;
    signals::drain_wakeups();
    signals::arrivals now = signals::arrived();
    if (now.switches > stop.switches_seen_) {
      stop.switches_seen_ = now.switches;
      stop.notice_(
          "arec: SIGUSR2 ignored: switching output files (--switch-output) is not "
          "supported yet");
    }
    if (now.stops > 0) {
      stop.control_.stop();
      co_return;
    }
  }
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
    : control_(control), timer_(control.get_executor()), notice_(std::move(notice)) {
  async::executor on = control.get_executor();
  signals_ = std::make_unique<async::readiness>(on, io::stop_signals::wakeup_fd());
  async::spawn_detached(on, await_signals(*this));
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
