// stream_sink: a record_sink on the control thread that hands whole batches of records to a
// streaming thread's data file, so synthesis runs while the rings drain (single-file mode).
// Two buffers alternate: one fills while the other is being written.
#pragma once

#include <array>
#include <future>
#include <vector>

#include "io/record_sink.hpp"
#include "record/streaming/streamer.hpp"

namespace arec::record {

class stream_sink final : public io::record_sink {
 public:
  explicit stream_sink(streamer& target);
  ~stream_sink() override;
  void write(std::span<const std::byte> record) override;
  // Hands over what is buffered and waits until everything is written; rethrows a write error.
  void flush();

 private:
  void hand_over();

  streamer& target_;
  std::array<std::vector<std::byte>, 2> buffers_;
  std::array<std::future<void>, 2> written_;
  std::size_t filling_ = 0;
};

}  // namespace arec::record
