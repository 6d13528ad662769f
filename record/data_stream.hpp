// data_stream: one data file as the coroutines of a streaming thread see it: write() suspends
// until the bytes are on the file, while a pump coroutine turns io_uring completions (signalled
// on an eventfd the executor waits on) into resumptions. With the plain backend writes complete
// synchronously and there is no pump.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "async/event.hpp"
#include "async/task.hpp"
#include "io/append_writer.hpp"

namespace arec::record {

class data_stream {
 public:
  data_stream(const asio::any_io_executor& executor, std::unique_ptr<io::append_writer> writer);

  // Appends `pieces` at the end of the file and returns once they are written. `done` is the
  // caller's own completion event (one per writer of the stream, reused for every write).
  // Throws std::system_error when the write fails.
  async::task<void> write(std::span<const std::span<const std::byte>> pieces, async::event& done);
  // Returns once a write can start without waiting; a write() right after it, with no
  // suspension between, keeps the order in which callers prepared their bytes.
  async::task<void> wait_for_slot();
  // Waits for completions until close() and the last write finished. Spawn once per stream.
  async::task<void> pump();
  // No more writes will be started; the pump ends once the last one has finished.
  void close();

  std::uint64_t offset() const { return writer_->offset(); }
  io::writer_backend backend() const { return writer_->backend(); }

 private:
  void reap();

  asio::any_io_executor executor_;
  std::unique_ptr<io::append_writer> writer_;
  async::event slot_freed_;
  async::event wake_pump_;
  bool closed_ = false;
  std::array<std::uint64_t, 64> finished_{};
};

}  // namespace arec::record
