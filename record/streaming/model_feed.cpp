#include "record/streaming/model_feed.hpp"

#include <linux/perf_event.h>

#include <cstring>
#include <string_view>

#include "io/perf_data/perf_abi.hpp"
#include "model/side_band.hpp"

namespace arec::record {
namespace {

constexpr std::size_t max_record_size = 1u << 16;

bool is_side_band(std::uint32_t type) {
  return type == PERF_RECORD_COMM || type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT ||
         type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2;
}

}  // namespace

model_feed::model_feed(model::machine& machine)
    : machine_(machine), straddling_(std::make_unique<std::byte[]>(max_record_size)) {}

void model_feed::apply(std::span<const std::byte> record) {
  model::apply_side_band(machine_, record);
}

void model_feed::scan(const ring_chunk& chunk) {
  std::size_t size = chunk.size();
  std::size_t first_piece = chunk.pieces[0].size();
  std::size_t offset = 0;
  while (offset + sizeof(io::perf::record_header) <= size) {
    io::perf::record_header header;
    chunk.copy_out(offset, std::as_writable_bytes(std::span{&header, 1}));
    if (header.size < sizeof header || offset + header.size > size) break;
    if (is_side_band(header.type)) {
      if (offset + header.size <= first_piece) {
        apply(chunk.pieces[0].subspan(offset, header.size));
      } else if (offset >= first_piece) {
        apply(chunk.pieces[1].subspan(offset - first_piece, header.size));
      } else {
        std::span<std::byte> copy{straddling_.get(), header.size};
        chunk.copy_out(offset, copy);
        apply(copy);
      }
    }
    offset += header.size;
  }
}

void model_feed_sink::write(std::span<const std::byte> record) {
  feed_.apply(record);
  next_.write(record);
}

}  // namespace arec::record
