// compressor: the zstd stage of the streaming path. One continuous zstd frame per output stream,
// never ended, cut into PERF_RECORD_COMPRESSED records (docs/perf-data-format.md, "COMPRESSED
// records") that perf 6.1 decodes with one streaming context per file. Input is gathered into
// segments: a segment's records are built in a caller's buffer and end with a zstd flush, so
// everything given so far decodes from the records written so far, and no record decodes to more
// than its segment's input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "perf_data/perf_abi.hpp"

struct ZSTD_CCtx_s;

namespace arec::perf_data {

class compressor {
 public:
  // Largest payload of one COMPRESSED record, so that header + payload fits the u16 size.
  static constexpr std::size_t max_payload =
      perf_data::max_record_size - sizeof(perf_data::record_header);

  // `level` is a zstd level in 1..22; anything else throws std::invalid_argument.
  // `window_log`, when not 0, caps zstd's history (2^window_log bytes), which bounds the memory
  // of its context. The zstd context is created on the first input and reused for the run.
  explicit compressor(int level, int window_log = 0);

  compressor(compressor&&) noexcept = default;
  compressor& operator=(compressor&&) noexcept = default;
  ~compressor() = default;

  // Starts a segment whose records are built in `out`. Throws std::logic_error if one is open.
  void begin(std::span<std::byte> out);
  // Compresses the concatenation of `pieces` (e.g. the two halves of a wrapped ring chunk, read
  // in place) into the open segment without flushing: zstd keeps what does not fill a block,
  // so the pieces may be released on return. Throws std::invalid_argument if the segment's
  // buffer is below bound(its input so far), std::runtime_error with zstd's message if zstd
  // fails (the stream is then unusable). Allocates nothing after the first call.
  void add(std::span<const std::span<const std::byte>> pieces);
  // Flushes and closes the open segment: its buffer then holds consecutive COMPRESSED records
  // (type 81, misc 0, size = 8 + payload, payload <= max_payload), all full but the last.
  // Returns the bytes of the buffer used; 0 (no record) when the segment had no input.
  std::size_t finish();
  bool segment_open() const noexcept { return segment_open_; }
  // Input bytes given to the open segment (0 when none is open).
  std::size_t segment_input() const noexcept { return segment_input_; }

  // One segment of one chunk: begin(out), add(pieces), finish().
  std::size_t compress(std::span<const std::span<const std::byte>> pieces,
                       std::span<std::byte> out);

  // Worst-case bytes of a segment of `input_size` bytes of input, record headers included.
  static std::size_t bound(std::size_t input_size) noexcept;

  // Totals over all segments: input bytes, and output bytes including record headers.
  std::uint64_t bytes_in() const noexcept { return bytes_in_; }
  std::uint64_t bytes_out() const noexcept { return bytes_out_; }
  int level() const noexcept { return level_; }

 private:
  struct cctx_deleter {
    void operator()(ZSTD_CCtx_s* cctx) const noexcept;
  };

  ZSTD_CCtx_s* context();
  // Runs zstd over `input` into the open segment, cutting records as they fill; with `flush`,
  // until zstd has nothing left to write.
  void run(std::span<const std::byte> input, bool flush);
  void open_record();
  void close_record(std::size_t payload);
  void cut_full_record();

  std::unique_ptr<ZSTD_CCtx_s, cctx_deleter> cctx_;
  int level_;
  int window_log_;
  std::uint64_t bytes_in_ = 0;
  std::uint64_t bytes_out_ = 0;
  // The open segment.
  std::span<std::byte> out_;
  std::size_t used_ = 0;    // bytes of out_ taken by closed records and the open record's header
  std::size_t record_ = 0;  // offset of the open record's header in out_
  std::size_t payload_size_ = 0;  // bytes zstd wrote into the open record
  bool record_open_ = false;
  std::size_t segment_input_ = 0;
  bool segment_open_ = false;
};

}  // namespace arec::perf_data
