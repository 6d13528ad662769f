// compressor: one never-ended zstd frame per stream, cut into COMPRESSED records.
#include "record/compressor.hpp"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace arec::record {
namespace {

// ZSTD_FRAMEHEADERSIZE_MAX is behind ZSTD_STATIC_LINKING_ONLY; the format fixes it at 18 bytes
// (magic 4, descriptor 1, window 1, dictionary id 4, content size 8).
constexpr std::size_t frame_header_max = 18;
constexpr std::size_t block_header = 3;
constexpr std::size_t header_size = sizeof(io::perf::record_header);

[[noreturn]] void throw_zstd(const char* what, std::size_t code) {
  throw std::runtime_error(std::string(what) + ": " + ZSTD_getErrorName(code));
}

void write_header(std::byte* at, std::size_t payload) {
  const io::perf::record_header header{
      .type = io::perf::record_compressed,
      .misc = 0,
      .size = static_cast<std::uint16_t>(header_size + payload),
  };
  std::memcpy(at, &header, header_size);  // records are not 8-aligned: no typed store
}

}  // namespace

void compressor::cctx_deleter::operator()(ZSTD_CCtx_s* cctx) const noexcept {
  ZSTD_freeCCtx(cctx);
}

compressor::compressor(int level) : level_(level) {
  if (level < 1 || level > ZSTD_maxCLevel()) {
    throw std::invalid_argument("zstd compression level " + std::to_string(level) +
                                " is outside 1.." + std::to_string(ZSTD_maxCLevel()));
  }
}

ZSTD_CCtx_s* compressor::context() {
  if (cctx_) return cctx_.get();
  std::unique_ptr<ZSTD_CCtx_s, cctx_deleter> cctx(ZSTD_createCCtx());
  if (!cctx) throw std::bad_alloc();
  if (const auto rc = ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level_);
      ZSTD_isError(rc)) {
    throw_zstd("ZSTD_CCtx_setParameter(compressionLevel)", rc);
  }
  cctx_ = std::move(cctx);
  return cctx_.get();
}

std::size_t compressor::bound(std::size_t input_size) noexcept {
  // A flushed chunk is at most ceil(n / 128 KiB) + 1 blocks (zstd may cut a block where its
  // internal buffer wraps), each either compressed or stored raw behind a 3-byte header; the
  // frame header comes once, on the first chunk. Records are full but the last.
  const std::size_t blocks = input_size / ZSTD_BLOCKSIZE_MAX + 2;
  const std::size_t payload = input_size + blocks * block_header + frame_header_max;
  const std::size_t records = (payload + max_payload - 1) / max_payload;
  return payload + records * header_size;
}

std::size_t compressor::compress(std::span<const std::span<const std::byte>> pieces,
                                 std::span<std::byte> out) {
  std::size_t total = 0;
  std::size_t last = 0;  // index of the last non-empty piece: it carries the flush
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (!pieces[i].empty()) last = i;
    total += pieces[i].size();
  }
  if (total == 0) return 0;
  if (out.size() < bound(total)) {
    throw std::invalid_argument("compressor::compress: output of " + std::to_string(out.size()) +
                                " bytes is below bound " + std::to_string(bound(total)));
  }
  ZSTD_CCtx* const cctx = context();

  std::size_t used = 0;
  std::size_t record = 0;  // offset of the open record's header in `out`
  ZSTD_outBuffer payload{nullptr, 0, 0};
  const auto open_record = [&] {
    // bound() makes this unreachable; the check keeps a wrong bound from overrunning `out`.
    if (out.size() - used <= header_size) throw std::logic_error("compressor::bound too small");
    record = used;
    used += header_size;
    payload = {out.data() + used, std::min(max_payload, out.size() - used), 0};
  };
  const auto close_record = [&] {
    write_header(out.data() + record, payload.pos);
    used += payload.pos;
    payload = {nullptr, 0, 0};
  };

  for (std::size_t i = 0; i <= last; ++i) {
    if (pieces[i].empty()) continue;
    ZSTD_inBuffer input{pieces[i].data(), pieces[i].size(), 0};
    // The pieces are one logical chunk: only its end is a flush point, so a ring wrap does not
    // cost an extra block.
    const ZSTD_EndDirective mode = i == last ? ZSTD_e_flush : ZSTD_e_continue;
    for (;;) {
      if (payload.dst == nullptr) open_record();
      const std::size_t pending = ZSTD_compressStream2(cctx, &payload, &input, mode);
      if (ZSTD_isError(pending)) throw_zstd("ZSTD_compressStream2", pending);
      if (payload.pos == payload.size) close_record();
      if (mode == ZSTD_e_continue ? input.pos == input.size : pending == 0) break;
    }
  }
  if (payload.dst != nullptr) {
    if (payload.pos == 0) {
      used -= header_size;  // opened for output that never came: no empty record
    } else {
      close_record();
    }
  }
  bytes_in_ += total;
  bytes_out_ += used;
  return used;
}

}  // namespace arec::record
