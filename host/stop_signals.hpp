// stop_signals: the signals that steer a recording (SIGINT, SIGTERM and SIGHUP stop it; SIGUSR2
// is perf's switch-output signal), caught from arec's first instruction to its exit. A handler
// only counts the signal and wakes an eventfd; what it means is decided by whoever waits on
// that descriptor, at a moment when acting on it cannot cut a file in half. The counters are
// the process-wide state a signal handler forces (docs/crash-safety.md).
#pragma once

#include <sys/types.h>

namespace arec::host::stop_signals {

// Installs the handlers (and the eventfd they wake); call first in main, before anything is
// created. Throws std::system_error when the eventfd cannot be made.
void install();

// What has arrived since install().
struct arrivals {
  int first_stop = 0;     // the first of SIGINT/SIGTERM/SIGHUP to arrive, or 0
  unsigned stops = 0;     // how many of them arrived
  unsigned switches = 0;  // how many SIGUSR2 arrived
};
arrivals arrived();

// Readable once a caught signal arrived since the last drain_wakeups(); -1 before install().
int wakeup_fd();
void drain_wakeups();

// Forks with the caught signals blocked around the fork; the child gets their default actions
// before it unblocks them, so a Ctrl-C sent to the process group never runs arec's handlers in
// the child (nor wakes arec through the shared eventfd). Returns fork()'s result.
pid_t fork_with_default_signals();

// For a recording: a pipe reader that goes away (of the data, of --control's acks, of stderr)
// makes writes fail with EPIPE (reported, or a message dropped) rather than kill arec with
// SIGPIPE before the file is finished. The workload gets the disposition arec was started with.
void ignore_broken_pipe();

// Gives `signal` its default action and raises it: arec ends as that signal ends a process.
[[noreturn]] void die_of(int signal);

}  // namespace arec::host::stop_signals
