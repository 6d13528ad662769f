// streaming_thread: one streaming thread of a recording, pinned as --threads says, and the
// streamer it runs.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "async/executor_thread.hpp"
#include "record/layout/stream_layout.hpp"
#include "record/streaming/streamer.hpp"

namespace arec::record {

// A streaming thread and its work. The thread is stopped before the streamer it runs dies.
struct streaming_thread {
  streaming_thread(const stream_thread_mask& mask, std::size_t index, const streamer_config& config,
                   std::function<void()> on_failure)
      : thread(mask.affinity, "arec-stream-" + std::to_string(index)),
        stream(thread, config, std::move(on_failure)) {
    // A stream that failed, or a thread halted while unwinding, may leave writes in the kernel
    // that only this thread can wait for; the stream dies later, on another thread.
    thread.run_sync([this] { thread.at_exit([this] { stream.settle(); }); });
  }
  ~streaming_thread() { thread.halt(); }
  async::executor_thread thread;
  streamer stream;
};

}  // namespace arec::record
