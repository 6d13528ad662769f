#include "record/streaming/compression_stage.hpp"

namespace arec::record {
namespace {

// zstd's history: 256 KiB instead of level 1's 512 KiB halves the context's input buffer; on
// perf sample streams the ratio changes by under 1% (docs/performance-log.md).
constexpr int window_log = 18;

}  // namespace

compression_stage::compression_stage(const async::executor& executor, int level,
                                     std::size_t seal_bytes, std::size_t rings,
                                     written_handler on_written)
    : compressor_(level, window_log),
      seal_bytes_(seal_bytes),
      buffer_size_(perf_data::compressor::bound(max_decoded_bytes(seal_bytes))),
      on_written_(std::move(on_written)),
      buffers_{segment_buffer(executor), segment_buffer(executor)},
      buffer_freed_(executor) {
  for (segment_buffer& buffer : buffers_) {
    buffer.bytes = std::make_unique_for_overwrite<std::byte[]>(buffer_size_);
    buffer.by_ring.resize(rings);
  }
}

async::task<void> compression_stage::ready(data_stream& stream) {
  while (filling_ == nullptr) {
    stream.throw_if_failed();
    for (segment_buffer& buffer : buffers_) {
      if (!buffer.in_flight) {
        filling_ = &buffer;
        compressor_.begin({buffer.bytes.get(), buffer_size_});
        co_return;
      }
    }
    buffer_freed_.reset();
    co_await buffer_freed_.wait();
  }
}

void compression_stage::add(std::span<const std::span<const std::byte>> pieces, std::size_t ring,
                            const stream_stats& drained) {
  compressor_.add(pieces);
  filling_->by_ring[ring].merge(drained);
  filling_->samples += drained.samples;
}

async::task<void> compression_stage::seal(data_stream& stream) {
  // The zstd stream must reach the file in the order it was produced: take a write slot first,
  // so nothing suspends between flushing and submitting.
  co_await stream.wait_for_slot();
  if (filling_ == nullptr || compressor_.segment_input() == 0) co_return;
  segment_buffer& buffer = *filling_;
  filling_ = nullptr;
  const std::size_t size = compressor_.finish();
  buffer.in_flight = true;
  const std::array<std::span<const std::byte>, 1> pieces{std::span{buffer.bytes.get(), size}};
  try {
    co_await stream.write(pieces, buffer.written, buffer.samples);
  } catch (...) {
    buffer_freed_.set();  // a waiter in ready() sees the failure
    throw;
  }
  on_written_(buffer.by_ring, size);
  for (stream_stats& stats : buffer.by_ring) stats = {};
  buffer.samples = 0;
  buffer.in_flight = false;
  buffer_freed_.set();
}

}  // namespace arec::record
