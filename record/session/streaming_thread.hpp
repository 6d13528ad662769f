// streaming_thread: one streaming thread of a recording, pinned as --threads says, and the
// streamer it runs.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "async/executor_thread.hpp"
#include "async/thread_slice.hpp"
#include "record/layout/stream_layout.hpp"
#include "record/streaming/streamer.hpp"

namespace arec::record {

// A streaming thread's time slice. Drains take tens of microseconds, but a `-m 8` ring under a
// tracepoint flood fills in about a millisecond: with the default slice (1.5 ms on 2 CPUs) the
// thread, preempted by its own io-wq worker copying a write, lost events in ~1 run of 7; with
// 0.5 ms slices (which the workers inherit) it gets the CPU back in time (docs/performance-log.md,
// "Shorter slices for the streaming threads"). Its share of CPU does not change.
inline constexpr std::chrono::microseconds streaming_slice{500};

// A streaming thread and its work. The thread is stopped before the streamer it runs dies.
struct streaming_thread {
  streaming_thread(const stream_thread_mask& mask, std::size_t index, const streamer_config& config,
                   std::function<void()> on_failure)
      : thread(mask.affinity, "arec-stream-" + std::to_string(index)),
        stream(thread, config, std::move(on_failure)) {
    // A stream that failed, or a thread halted while unwinding, may leave writes in the kernel
    // that only this thread can wait for; the stream dies later, on another thread.
    thread.run_sync([this] {
      thread.at_exit([this] { stream.settle(); });
      slice_error = async::request_time_slice(streaming_slice);
    });
  }
  ~streaming_thread() { thread.halt(); }
  async::executor_thread thread;
  streamer stream;
  std::string slice_error;  // why the thread keeps the default slice, if the kernel refused
};

}  // namespace arec::record
