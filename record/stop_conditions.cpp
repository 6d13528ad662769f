#include "record/stop_conditions.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

namespace arec::record {

async::task<void> await_exit(stop_conditions& stop, async::readiness& exit) {
  bool exited = co_await exit.readable();
  if (exited && ++stop.exited_ == stop.watched_.size()) stop.control_.stop();
  co_return;
}

stop_conditions::stop_conditions(asio::io_context& control, std::optional<double> duration_s,
                                 std::vector<int> exit_fds)
    : control_(control), signals_(control, SIGINT, SIGTERM, SIGHUP), timer_(control) {
  signals_.async_wait([this](std::error_code error, int signal) {
    if (!error) stopping_signal_ = signal;
    control_.stop();
  });
  if (duration_s) {
    timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(*duration_s)));
    timer_.async_wait([this](std::error_code error) {
      if (!error) control_.stop();
    });
  }
  for (int fd : exit_fds) watched_.push_back(std::make_unique<async::readiness>(control.get_executor(), fd));
  for (auto& exit : watched_) asio::co_spawn(control, await_exit(*this, *exit), asio::detached);
}

void stop_conditions::release_signals() {
  std::error_code ignored;
  signals_.clear(ignored);
}

std::vector<io::unique_fd> open_pidfds(const std::vector<int>& pids) {
  std::vector<io::unique_fd> fds;
  for (int pid : pids) {
    int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (fd >= 0) fds.emplace_back(fd);
  }
  return fds;
}

}  // namespace arec::record
