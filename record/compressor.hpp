// compressor: the zstd stage of the streaming path. One continuous zstd frame per output stream,
// never ended, flushed after every chunk, cut into PERF_RECORD_COMPRESSED records (format doc
// §4.7) that perf 6.1 decodes with one streaming context per file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "io/perf_abi.hpp"

struct ZSTD_CCtx_s;

namespace arec::record {

class compressor {
 public:
  // Largest payload of one COMPRESSED record, so that header + payload fits the u16 size.
  static constexpr std::size_t max_payload =
      io::perf::max_record_size - sizeof(io::perf::record_header);

  // `level` is a zstd level in 1..22; anything else throws std::invalid_argument. The zstd
  // context is created on the first compress() and reused for the whole run.
  explicit compressor(int level);

  compressor(compressor&&) noexcept = default;
  compressor& operator=(compressor&&) noexcept = default;
  ~compressor() = default;

  // Compresses the concatenation of `pieces` (e.g. the two halves of a wrapped ring chunk, read
  // in place) and writes it to `out` as consecutive COMPRESSED records (type 81, misc 0,
  // size = 8 + payload, payload <= max_payload). Every record but the last of a call is full.
  // Ends with a zstd flush, so all input given so far is decodable from the records written so
  // far. Returns the bytes of `out` used; 0 (no record) when the pieces are empty.
  // Throws std::invalid_argument if out.size() < bound(total input), std::runtime_error with
  // zstd's message if zstd fails (the stream is then unusable).
  // Allocates nothing after the first call.
  std::size_t compress(std::span<const std::span<const std::byte>> pieces,
                       std::span<std::byte> out);

  // Worst-case bytes compress() writes for `input_size` bytes of input, record headers included.
  static std::size_t bound(std::size_t input_size) noexcept;

  // Totals over all compress() calls: input bytes, and output bytes including record headers.
  std::uint64_t bytes_in() const noexcept { return bytes_in_; }
  std::uint64_t bytes_out() const noexcept { return bytes_out_; }
  int level() const noexcept { return level_; }

 private:
  struct cctx_deleter {
    void operator()(ZSTD_CCtx_s* cctx) const noexcept;
  };

  ZSTD_CCtx_s* context();

  std::unique_ptr<ZSTD_CCtx_s, cctx_deleter> cctx_;
  int level_;
  std::uint64_t bytes_in_ = 0;
  std::uint64_t bytes_out_ = 0;
};

}  // namespace arec::record
