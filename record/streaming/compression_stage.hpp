// compression_stage: the zstd stage of one streaming thread (-z). The drains of all its rings
// feed one zstd stream; its output gathers in a segment that is flushed and written once per
// round, or as soon as it holds `seal_bytes` of input. Fewer flushes make larger zstd blocks
// (a better ratio than a flush per drain) while every COMPRESSED record still decodes to at
// most 2 x seal_bytes, which the COMPRESSED feature's mmap_len announces to perf's reader.
// Two segment buffers alternate: one is written while the next fills.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "async/event.hpp"
#include "async/spawn.hpp"
#include "async/task.hpp"
#include "perf_data/compressor.hpp"
#include "record/streaming/data_stream.hpp"
#include "record/streaming/stream_stats.hpp"

namespace arec::record {

class compression_stage {
 public:
  // Called on the streaming thread when a segment is on the file: what each ring (by index)
  // drained into it, and the bytes it took on the file.
  using written_handler =
      std::function<void(std::span<const stream_stats> by_ring, std::uint64_t file_bytes)>;

  // `seal_bytes`: input after which a segment is sealed; no drain may exceed it.
  compression_stage(const async::executor& executor, int level, std::size_t seal_bytes,
                    std::size_t rings, written_handler on_written);

  // Returns once a segment is open for input (a buffer may have to finish its write first).
  // add() right after it, with no suspension between, goes into that segment.
  async::task<void> ready(data_stream& stream);
  // Compresses one drained chunk of ring `ring` into the open segment; the chunk's bytes may
  // be released on return. `drained` is counted when the segment is written.
  void add(std::span<const std::span<const std::byte>> pieces, std::size_t ring,
           const stream_stats& drained);
  // The open segment holds enough input to be sealed now.
  bool full() const { return compressor_.segment_input() >= seal_bytes_; }
  // Flushes the open segment and writes it; returns when it is on the file. Nothing to do when
  // no segment holds input. Throws the stream's error.
  async::task<void> seal(data_stream& stream);

  // The most one COMPRESSED record decodes to when segments are sealed at `seal_bytes`: perf's
  // mmap_len must cover it. A segment is sealed once it holds seal_bytes, after a drain of at
  // most seal_bytes more.
  static constexpr std::size_t max_decoded_bytes(std::size_t seal_bytes) { return 2 * seal_bytes; }
  const perf_data::compressor& totals() const { return compressor_; }

 private:
  struct segment_buffer {
    explicit segment_buffer(const async::executor& executor) : written(executor) {}
    std::unique_ptr<std::byte[]> bytes;  // untouched until used: only written pages are resident
    std::vector<stream_stats> by_ring;
    std::uint64_t samples = 0;
    bool in_flight = false;
    async::event written;
  };

  perf_data::compressor compressor_;
  std::size_t seal_bytes_;
  std::size_t buffer_size_;
  written_handler on_written_;
  std::array<segment_buffer, 2> buffers_;
  segment_buffer* filling_ = nullptr;  // the buffer of the open segment, if one is open
  async::event buffer_freed_;
};

}  // namespace arec::record
