// push_sender: the push transport as a whole. push() hands a window to the spool and returns at
// once; a thread of its own sends the oldest window, retries with back-off while the server is
// unreachable, drops what the server refuses for good, and at stop() flushes for a bounded time
// and leaves the rest on disk for the next run.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "fleet/push_options.hpp"
#include "fleet/push_spool.hpp"
#include "fleet/push_window.hpp"

namespace arec::fleet {

// The default reporter: "arec: " + the message on stderr.
void report_to_stderr(const std::string& message);

// What ends the flush at exit early (a second Ctrl-C, a SIGTERM): `fd` turns readable when it
// may have happened and `requested()`, called then on a thread of the sender's, says whether it
// did (draining `fd` as needed). No fd: the flush runs its course.
struct flush_interrupt {
  int fd = -1;
  std::function<bool()> requested;
};

class push_sender {
 public:
  // Indexes the spool directory (windows left by an earlier run go first) and starts the thread.
  // Throws std::system_error when the spool directory cannot be made or read.
  explicit push_sender(push_options options, reporter report = report_to_stderr);
  ~push_sender();
  push_sender(const push_sender&) = delete;
  push_sender& operator=(const push_sender&) = delete;

  // Queues a window; never waits for the network (at most for one spool file write).
  void push(push_window window);

  // Sends what waits for at most options.flush_timeout (says so after a second), or
  // until `interrupt` says to end, then ends the request in progress, writes what is left to the
  // spool directory and reports it. Idempotent.
  void stop(const flush_interrupt& interrupt = {});

  spool_counts counts() const { return spool_.counts(); }

 private:
  void run();
  void send_until_stopped();
  void report_leftovers();
  void announce_flush() const;
  void watch_for_interrupt(const flush_interrupt& interrupt, int done_fd);

  push_options options_;
  reporter report_;
  push_spool spool_;
  std::atomic<bool> stopping_{false};     // flush what waits, then end
  std::atomic<bool> abort_{false};        // the flush time is over: end now
  std::atomic<bool> finished_{false};     // the thread has left its loop
  std::atomic<bool> interrupted_{false};  // the flush was cut short by the user
  bool failing_ = false;                  // the sender thread's: in a streak of retryable failures
  std::string last_failure_;              // the sender thread's (read after it ended): why
  std::thread thread_;
};

}  // namespace arec::fleet
