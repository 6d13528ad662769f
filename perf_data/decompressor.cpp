// decompressor: one streaming zstd context fed with consecutive COMPRESSED payloads.
#include "perf_data/decompressor.hpp"

#include <zstd.h>

#include <new>
#include <stdexcept>
#include <string>

namespace arec::perf_data {

void decompressor::dctx_deleter::operator()(ZSTD_DCtx_s* dctx) const noexcept {
  ZSTD_freeDCtx(dctx);
}

decompressor::decompressor() : dctx_(ZSTD_createDCtx()) {
  if (!dctx_) throw std::bad_alloc();
}

void decompressor::feed(std::span<const std::byte> payload, std::vector<std::byte>& out) {
  ZSTD_inBuffer input{payload.data(), payload.size(), 0};
  // Output grows in steps of zstd's preferred size (one block); resize() is amortized by the
  // vector's own geometric growth.
  const std::size_t step = ZSTD_DStreamOutSize();
  for (;;) {
    const std::size_t start = out.size();
    out.resize(start + step);
    ZSTD_outBuffer output{out.data() + start, step, 0};
    const std::size_t rc = ZSTD_decompressStream(dctx_.get(), &output, &input);
    out.resize(start + output.pos);
    if (ZSTD_isError(rc)) {
      ZSTD_DCtx_reset(dctx_.get(), ZSTD_reset_session_only);
      throw std::runtime_error(std::string("zstd decompression failed: ") + ZSTD_getErrorName(rc));
    }
    // A full output buffer may leave decoded bytes inside the context: call again even when the
    // input is used up.
    if (input.pos == input.size && output.pos < output.size) return;
  }
}

}  // namespace arec::perf_data
