// decompressor: turns the COMPRESSED payloads of one perf.data file (or one data.N file of a
// directory) back into the record stream, with one streaming zstd context per file as perf does.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

struct ZSTD_DCtx_s;

namespace arec::perf_data {

class decompressor {
 public:
  // Creates the zstd context; throws std::bad_alloc when zstd cannot.
  decompressor();

  decompressor(decompressor&&) noexcept = default;
  decompressor& operator=(decompressor&&) noexcept = default;
  ~decompressor() = default;

  // Decodes one COMPRESSED payload (the bytes after the 8-byte header), given in file order,
  // and appends what it yields to `out` (caller-owned; reusing it avoids allocation once it has
  // grown). The result is a plain record stream whose last record may continue in the next
  // payload. Throws std::runtime_error carrying zstd's message on corrupt input; the stream's
  // history is then lost and later payloads of the same file cannot be decoded.
  void feed(std::span<const std::byte> payload, std::vector<std::byte>& out);

 private:
  struct dctx_deleter {
    void operator()(ZSTD_DCtx_s* dctx) const noexcept;
  };

  std::unique_ptr<ZSTD_DCtx_s, dctx_deleter> dctx_;
};

}  // namespace arec::perf_data
