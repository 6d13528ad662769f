// compressor: one never-ended zstd frame per stream, cut into COMPRESSED records.
#include "perf_data/compressor.hpp"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace arec::perf_data {
namespace {

// ZSTD_FRAMEHEADERSIZE_MAX is behind ZSTD_STATIC_LINKING_ONLY; the format fixes it at 18 bytes
// (magic 4, descriptor 1, window 1, dictionary id 4, content size 8).
constexpr std::size_t frame_header_max = 18;
constexpr std::size_t block_header = 3;
constexpr std::size_t header_size = sizeof(perf_data::record_header);

[[noreturn]] void throw_zstd(const char* what, std::size_t code) {
  throw std::runtime_error(std::string(what) + ": " + ZSTD_getErrorName(code));
}

void set_parameter(ZSTD_CCtx* cctx, ZSTD_cParameter parameter, int value, const char* name) {
  if (const auto rc = ZSTD_CCtx_setParameter(cctx, parameter, value); ZSTD_isError(rc))
    throw_zstd(name, rc);
}

void write_header(std::byte* at, std::size_t payload) {
  const perf_data::record_header header{
      .type = perf_data::record_compressed,
      .misc = 0,
      .size = static_cast<std::uint16_t>(header_size + payload),
  };
  std::memcpy(at, &header, header_size);  // records are not 8-aligned: no typed store
}

}  // namespace

void compressor::cctx_deleter::operator()(ZSTD_CCtx_s* cctx) const noexcept {
  ZSTD_freeCCtx(cctx);
}

compressor::compressor(int level, int window_log) : level_(level), window_log_(window_log) {
  if (level < 1 || level > ZSTD_maxCLevel()) {
    throw std::invalid_argument("zstd compression level " + std::to_string(level) +
                                " is outside 1.." + std::to_string(ZSTD_maxCLevel()));
  }
  const ZSTD_bounds windows = ZSTD_cParam_getBounds(ZSTD_c_windowLog);
  if (window_log != 0 && (window_log < windows.lowerBound || window_log > windows.upperBound))
    throw std::invalid_argument("zstd window log " + std::to_string(window_log) + " is outside " +
                                std::to_string(windows.lowerBound) + ".." +
                                std::to_string(windows.upperBound));
}

ZSTD_CCtx* compressor::context() {
  if (cctx_) return cctx_.get();
  std::unique_ptr<ZSTD_CCtx, cctx_deleter> cctx(ZSTD_createCCtx());
  if (!cctx) throw std::bad_alloc();
  set_parameter(cctx.get(), ZSTD_c_compressionLevel, level_, "ZSTD_CCtx_setParameter(level)");
  if (window_log_ != 0)
    set_parameter(cctx.get(), ZSTD_c_windowLog, window_log_, "ZSTD_CCtx_setParameter(windowLog)");
  cctx_ = std::move(cctx);
  return cctx_.get();
}

std::size_t compressor::bound(std::size_t input_size) noexcept {
  // A flushed segment is at most ceil(n / 128 KiB) + 1 blocks (zstd may cut a block where its
  // internal buffer wraps), each either compressed or stored raw behind a 3-byte header; the
  // frame header comes once, on the first segment. Records are full but the last.
  const std::size_t blocks = input_size / ZSTD_BLOCKSIZE_MAX + 2;
  const std::size_t payload = input_size + blocks * block_header + frame_header_max;
  const std::size_t records = (payload + max_payload - 1) / max_payload;
  return payload + records * header_size;
}

void compressor::begin(std::span<std::byte> out) {
  if (segment_open_) throw std::logic_error("compressor::begin: a segment is open");
  out_ = out;
  used_ = 0;
  record_open_ = false;
  segment_input_ = 0;
  segment_open_ = true;
}

void compressor::open_record() {
  // bound() makes this unreachable; the check keeps a wrong bound from overrunning the buffer.
  if (out_.size() - used_ <= header_size) throw std::logic_error("compressor::bound too small");
  record_ = used_;
  used_ += header_size;
  payload_size_ = 0;
  record_open_ = true;
}

void compressor::close_record(std::size_t payload) {
  write_header(out_.data() + record_, payload);
  used_ += payload;
  record_open_ = false;
}

// zstd writes into the open record's payload with the whole rest of the buffer as room: given
// room for a full block it compresses in place, where a 64 KiB record would make it stage every
// block in a 128 KiB buffer of its own (memory and a copy). What overflows the record is then
// moved up to leave room for the next header; the room held back for those headers keeps
// bound() valid.
void compressor::run(std::span<const std::byte> bytes, bool flush) {
  ZSTD_CCtx* const cctx = context();
  ZSTD_inBuffer input{bytes.data(), bytes.size(), 0};
  for (;;) {
    if (!record_open_) open_record();
    const std::size_t room = out_.size() - used_;
    const std::size_t headers = (room + max_payload - 1) / max_payload * header_size;
    if (room <= headers + payload_size_) throw std::logic_error("compressor::bound too small");
    ZSTD_outBuffer payload{out_.data() + used_, room - headers, payload_size_};
    const std::size_t pending =
        ZSTD_compressStream2(cctx, &payload, &input, flush ? ZSTD_e_flush : ZSTD_e_continue);
    if (ZSTD_isError(pending)) throw_zstd("ZSTD_compressStream2", pending);
    payload_size_ = payload.pos;
    while (payload_size_ >= max_payload) cut_full_record();
    if (flush ? pending == 0 : input.pos == input.size) return;
  }
}

// Closes the open record at max_payload; the bytes after it become the next record's payload.
void compressor::cut_full_record() {
  std::byte* const overflow = out_.data() + used_ + max_payload;
  const std::size_t rest = payload_size_ - max_payload;
  close_record(max_payload);
  payload_size_ = 0;
  if (rest == 0) return;
  std::memmove(overflow + header_size, overflow, rest);
  open_record();
  payload_size_ = rest;
}

void compressor::add(std::span<const std::span<const std::byte>> pieces) {
  if (!segment_open_) throw std::logic_error("compressor::add: no segment is open");
  std::size_t total = 0;
  for (auto piece : pieces) total += piece.size();
  if (out_.size() < bound(segment_input_ + total)) {
    throw std::invalid_argument("compressor: segment buffer of " + std::to_string(out_.size()) +
                                " bytes is below bound " +
                                std::to_string(bound(segment_input_ + total)));
  }
  // The pieces are one logical chunk and only a segment's end is a flush point, so neither a
  // ring wrap nor a drain costs an extra block.
  for (auto piece : pieces)
    if (!piece.empty()) run(piece, false);
  segment_input_ += total;
  bytes_in_ += total;
}

std::size_t compressor::finish() {
  if (!segment_open_) throw std::logic_error("compressor::finish: no segment is open");
  segment_open_ = false;
  if (segment_input_ == 0) return 0;
  run({}, true);
  if (record_open_) {
    if (payload_size_ == 0) {
      used_ -= header_size;  // opened for output that never came: no empty record
      record_open_ = false;
    } else {
      close_record(payload_size_);
    }
  }
  segment_input_ = 0;
  bytes_out_ += used_;
  return used_;
}

std::size_t compressor::compress(std::span<const std::span<const std::byte>> pieces,
                                 std::span<std::byte> out) {
  begin(out);
  try {
    add(pieces);
  } catch (...) {
    segment_open_ = false;  // the caller's buffer is not kept past a failed call
    throw;
  }
  return finish();
}

}  // namespace arec::perf_data
