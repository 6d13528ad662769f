#include "host/stop_signals.hpp"

#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>

#include "base/system_error.hpp"

namespace arec::host::stop_signals {
namespace {

constexpr std::array stop_signals{SIGINT, SIGTERM, SIGHUP};
constexpr int switch_signal = SIGUSR2;

// Written by the handlers, hence global; lock-free atomics are async-signal-safe.
std::atomic<int> first_stop{0};
std::atomic<unsigned> stop_count{0};
std::atomic<unsigned> switch_count{0};
std::atomic<int> wakeup{-1};  // the eventfd, set once before any handler is installed
// SIGPIPE's disposition before ignore_broken_pipe(), for the workload; set once, before it forks.
struct sigaction inherited_pipe_action {};
bool broken_pipe_ignored = false;

static_assert(std::atomic<int>::is_always_lock_free && std::atomic<unsigned>::is_always_lock_free);

void on_signal(int signal) {
  int saved_errno = errno;
  if (signal == switch_signal) {
    switch_count.fetch_add(1);
  } else {
    int none = 0;
    first_stop.compare_exchange_strong(none, signal);
    stop_count.fetch_add(1);
  }
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t ignored = ::write(wakeup.load(), &one, sizeof one);
  errno = saved_errno;
}

sigset_t caught_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int signal : stop_signals) sigaddset(&set, signal);
  sigaddset(&set, switch_signal);
  return set;
}

void set_action(int signal, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;
  sigfillset(&action.sa_mask);  // one handler at a time: the counters stay consistent
  ::sigaction(signal, &action, nullptr);
}

}  // namespace

void install() {
  if (wakeup.load() >= 0) return;
  wakeup.store(
      base::check_syscall(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), "eventfd", "signal wakeup"));
  for (int signal : stop_signals) set_action(signal, on_signal);
  set_action(switch_signal, on_signal);
}

arrivals arrived() {
  return {first_stop.load(), stop_count.load(), switch_count.load()};
}

int wakeup_fd() {
  return wakeup.load();
}

void drain_wakeups() {
  std::uint64_t count = 0;
  [[maybe_unused]] ssize_t ignored = ::read(wakeup.load(), &count, sizeof count);
}

pid_t fork_with_default_signals() {
  sigset_t caught = caught_set(), previous;
  ::pthread_sigmask(SIG_BLOCK, &caught, &previous);
  pid_t pid = ::fork();
  if (pid == 0) {
    for (int signal : stop_signals) set_action(signal, SIG_DFL);
    set_action(switch_signal, SIG_DFL);
    if (broken_pipe_ignored) ::sigaction(SIGPIPE, &inherited_pipe_action, nullptr);
  }
  int saved_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  errno = saved_errno;
  return pid;
}

void ignore_broken_pipe() {
  if (broken_pipe_ignored) return;
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  base::check_syscall(::sigaction(SIGPIPE, &ignore, &inherited_pipe_action), "sigaction",
                      "SIGPIPE");
  broken_pipe_ignored = true;
}

void die_of(int signal) {
  set_action(signal, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal);
  ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  ::raise(signal);
  std::_Exit(128 + signal);  // not reached for a signal whose default action ends the process
}

}  // namespace arec::host::stop_signals
