// readiness: waits, on an executor, until a file descriptor it does not own becomes readable
// (a perf ring's wakeup watermark, an io_uring completion eventfd, a pidfd).
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/posix/stream_descriptor.hpp>

#include "async/task.hpp"

namespace arec::async {

class readiness {
 public:
  readiness(const asio::any_io_executor& executor, int fd);
  ~readiness();
  readiness(const readiness&) = delete;
  readiness& operator=(const readiness&) = delete;

  // True when the fd became readable (or hung up); false when cancel() interrupted the wait.
  task<bool> readable();
  // Interrupts a pending readable() on the same executor.
  void cancel();

 private:
  asio::posix::stream_descriptor descriptor_;
};

}  // namespace arec::async
