#include "record/streaming/model_feed.hpp"

#include <linux/perf_event.h>

#include <algorithm>
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

model_feed::model_feed(model::machine& machine, std::size_t trailer_time_from_end)
    : machine_(machine),
      trailer_time_from_end_(trailer_time_from_end),
      straddling_(std::make_unique<std::byte[]>(max_record_size)) {}

void model_feed::enqueue(std::span<const std::byte> record) {
  if (trailer_time_from_end_ == 0 || record.size() < trailer_time_from_end_) {
    apply(record);
    return;
  }
  std::uint64_t time;
  std::memcpy(&time, record.data() + record.size() - trailer_time_from_end_, sizeof time);
  queue_.push_back({time, sequence_++, queued_bytes_.size(), record.size()});
  queued_bytes_.insert(queued_bytes_.end(), record.begin(), record.end());
  newest_queued_ = std::max(newest_queued_, time);
}

void model_feed::apply_queued_until(std::uint64_t bound) {
  if (queue_.empty()) return;
  std::sort(queue_.begin(), queue_.end(), [](const queued_record& a, const queued_record& b) {
    return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
  });
  std::size_t applied = 0;
  for (; applied < queue_.size() && queue_[applied].time <= bound; ++applied)
    apply(std::span<const std::byte>(queued_bytes_)
              .subspan(queue_[applied].offset, queue_[applied].size));
  // What stays is copied to the front, in order; the storage of both buffers is kept.
  kept_bytes_.clear();
  for (std::size_t i = applied; i < queue_.size(); ++i) {
    queued_record& left = queue_[i];
    std::size_t offset = kept_bytes_.size();
    kept_bytes_.insert(
        kept_bytes_.end(), queued_bytes_.begin() + static_cast<std::ptrdiff_t>(left.offset),
        queued_bytes_.begin() + static_cast<std::ptrdiff_t>(left.offset + left.size));
    left.offset = offset;
  }
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(applied));
  queued_bytes_.swap(kept_bytes_);
}

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
        enqueue(chunk.pieces[0].subspan(offset, header.size));
      } else if (offset >= first_piece) {
        enqueue(chunk.pieces[1].subspan(offset - first_piece, header.size));
      } else {
        std::span<std::byte> copy{straddling_.get(), header.size};
        chunk.copy_out(offset, copy);
        enqueue(copy);
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
