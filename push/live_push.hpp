// live_push: `arec --push`. The recording hands over each finished window (an output cut by the
// push interval); a thread of live_push's own exports it to a pprof, gives that to the push
// sender and removes the window's output unless the user keeps it (-o). Nothing here runs on
// the recorder's threads but output_finished(), which only queues: a slow export or a backend
// that is down never holds up draining.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <string>
#include <thread>

#include "base/annotated_mutex.hpp"
#include "export/window_exporter.hpp"
#include "fleet/push_options.hpp"
#include "fleet/push_sender.hpp"

namespace arec::push {

struct window_output {
  std::string path;  // a file or a --threads directory
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

struct push_totals {
  std::uint64_t windows = 0;        // exported and handed to the sender
  std::uint64_t profiles = 0;       // sent for them: more when a window was split for the server,
                                    // or into a profile per process (Parca)
  std::uint64_t split_windows = 0;  // windows split to the server's limits
  std::uint64_t cut_stacks = 0;     // stacks cut to the server's depth
  std::uint64_t samples = 0;
  std::uint64_t failed = 0;     // windows that could not be exported (reported one by one)
  std::uint64_t delivered = 0;  // of this run's, those the server took (not an earlier run's)
};

class live_push {
 public:
  // `keep_outputs`: the windows' outputs are the user's recording (-o) and stay on disk.
  // Throws std::system_error when the sender's spool directory cannot be used.
  live_push(fleet::push_options options, bool keep_outputs,
            fleet::reporter report = fleet::report_to_stderr);
  ~live_push();
  live_push(const live_push&) = delete;
  live_push& operator=(const live_push&) = delete;

  // Queues a finished window; returns at once.
  void output_finished(window_output window) AREC_EXCLUDES(mutex_);

  // Exports every window queued, then stops the sender: it flushes for a bounded time, or until
  // `interrupt` says to end (a second Ctrl-C), and leaves what it could not send in its spool
  // directory. Idempotent.
  void stop(const fleet::flush_interrupt& interrupt = {}) AREC_EXCLUDES(mutex_);

  push_totals totals() const AREC_EXCLUDES(mutex_);

 private:
  void run() AREC_EXCLUDES(mutex_);
  void export_and_push(const window_output& window) AREC_EXCLUDES(mutex_);
  // Says the first time a window had to be split or its stacks cut for the server.
  void report_limits_met(const exporting::window_export& exported, bool first_split,
                         bool first_cut) const;

  fleet::reporter report_;
  bool keep_outputs_;
  exporting::profile_limits limits_;     // the server's, for the encoder
  exporting::window_encoding encoding_;  // the format's
  fleet::payload_kind payload_;          // what that encoding makes
  fleet::push_sender sender_;
  // thread_'s alone: one for the whole recording, so symbol tables outlive the windows.
  exporting::window_exporter exporter_;
  // Lock order: mutex_ is a leaf; the sender's spool lock is never taken while it is held.
  mutable base::mutex mutex_;
  std::condition_variable_any queued_;
  std::deque<window_output> waiting_ AREC_GUARDED_BY(mutex_);
  bool stopping_ AREC_GUARDED_BY(mutex_) = false;
  push_totals totals_ AREC_GUARDED_BY(mutex_);
  std::thread thread_;  // last: starts once everything it uses exists
};

}  // namespace arec::push
