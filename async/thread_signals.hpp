// thread_signals: arec's own threads take no asynchronous signals, so that a stop signal is
// always handled by the main (control) thread, whatever the others are blocked in (a raw
// io_uring_enter, a /proc read). Under a sanitizer that runs handlers only at its own safe
// points, a signal caught by a thread parked in an uninstrumented system call would wait there.
#pragma once

#include <signal.h>

namespace arec::async {

// Blocks every blockable signal in the calling thread; call first in a thread arec starts.
inline void block_signals_in_this_thread() {
  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
}

}  // namespace arec::async
