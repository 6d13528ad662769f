#include "record/streaming/model_feed.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "model/side_band.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::record {
namespace {

constexpr std::size_t max_record_size = 1u << 16;

bool is_side_band(std::uint32_t type) {
  return type == PERF_RECORD_COMM || type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT ||
         type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2;
}

}  // namespace

model_feed::model_feed(model::machine& machine, std::size_t trailer_time_from_end,
                       std::optional<sample_position> samples)
    : machine_(machine),
      trailer_time_from_end_(trailer_time_from_end),
      samples_(samples),
      straddling_(std::make_unique<std::byte[]>(max_record_size)) {}

void model_feed::enqueue(std::span<const std::byte> record) {
  // The file is read through its mapping (host/mapped_file): known now, its dso is read while the
  // mapping exists, not a round or two later when a short-lived process may be gone.
  model::note_mapped_file(machine_, record);
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
  for (; applied < queue_.size() && queue_[applied].time <= bound; ++applied) {
    const queued_record& next = queue_[applied];
    if (next.size == 0)
      apply_sample(next);
    else
      apply(std::span<const std::byte>(queued_bytes_).subspan(next.offset, next.size));
  }
  // What stays is copied to the front, in order; the storage of both buffers is kept.
  kept_bytes_.clear();
  for (std::size_t i = applied; i < queue_.size(); ++i) {
    queued_record& left = queue_[i];
    if (left.size == 0) continue;  // a sample: no bytes
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

// MMAP, MMAP2, FORK and EXIT name their process (the child, for FORK) first in the body.
void model_feed::forget_process(std::uint32_t type, pid_t pid) noexcept {
  if (type != PERF_RECORD_MMAP && type != PERF_RECORD_MMAP2 && type != PERF_RECORD_FORK &&
      type != PERF_RECORD_EXIT)
    return;
  for (range_table* table : {&resolved_, &pending_})
    for (sampled_range& entry : *table)
      if (entry.pid == pid) entry = {};
}

void model_feed::scan(const ring_chunk& chunk) {
  std::size_t size = chunk.size();
  std::size_t first_piece = chunk.pieces[0].size();
  std::size_t offset = 0;
  while (offset + sizeof(perf_data::record_header) <= size) {
    perf_data::record_header header;
    chunk.copy_out(offset, std::as_writable_bytes(std::span{&header, 1}));
    if (header.size < sizeof header || offset + header.size > size) break;
    if (header.type == PERF_RECORD_SAMPLE && samples_) {
      note_sample(chunk, offset, header.misc, header.size);
    } else if (is_side_band(header.type)) {
      if (samples_ && header.size >= sizeof header + 4) {
        // Forgotten as soon as seen too, so that the next samples of the process are queued
        // behind this record rather than skipped by what it may have changed.
        std::uint32_t pid;
        chunk.copy_out(offset + sizeof header, std::as_writable_bytes(std::span{&pid, 1}));
        forget_process(header.type, static_cast<pid_t>(pid));
      }
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

model_feed::sampled_range& model_feed::slot(range_table& table, pid_t pid, std::uint64_t address,
                                            unsigned shift) noexcept {
  std::uint64_t key =
      ((address >> shift) ^ (static_cast<std::uint64_t>(pid) << 40)) * 0x9e3779b97f4a7c15ull;
  return table[(key >> 56) % table.size()];
}

void model_feed::note_sample(const ring_chunk& chunk, std::size_t offset, std::uint16_t misc,
                             std::size_t size) {
  const sample_position& at = *samples_;
  std::size_t body = offset + sizeof(perf_data::record_header);
  std::size_t needed = std::max({at.ip, at.tid, trailer_time_from_end_ ? at.time : 0}) + 8;
  if (size < sizeof(perf_data::record_header) + needed) return;
  std::uint16_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
  if (mode != PERF_RECORD_MISC_USER && mode != PERF_RECORD_MISC_KERNEL) return;  // guests: not ours
  std::uint64_t address = 0;
  std::uint32_t ids[2];
  chunk.copy_out(body + at.ip, std::as_writable_bytes(std::span{&address, 1}));
  chunk.copy_out(body + at.tid, std::as_writable_bytes(std::span{ids}));
  queued_record sample{};
  sample.offset = address;
  bool kernel = mode == PERF_RECORD_MISC_KERNEL;
  sample.pid = kernel ? -1 : static_cast<pid_t>(ids[0]);
  sample.tid = static_cast<pid_t>(ids[1]);
  if (slot(resolved_, sample.pid, address, 16).contains(sample.pid, address)) return;
  if (trailer_time_from_end_ == 0) {
    apply_sample(sample);
    return;
  }
  sampled_range& page = slot(pending_, sample.pid, address, 12);
  if (page.contains(sample.pid, address)) return;
  page = {sample.pid, address & ~std::uint64_t{4095}, (address & ~std::uint64_t{4095}) + 4096};
  chunk.copy_out(body + at.time, std::as_writable_bytes(std::span{&sample.time, 1}));
  sample.sequence = sequence_++;
  queue_.push_back(sample);
  newest_queued_ = std::max(newest_queued_, sample.time);
}

void model_feed::apply_sample(const queued_record& sample) {
  std::optional<model::map> hit = machine_.on_sample(sample.tid, sample.offset, sample.pid == -1);
  if (hit) slot(resolved_, sample.pid, sample.offset, 16) = {sample.pid, hit->start, hit->end};
}

void model_feed_sink::write(std::span<const std::byte> record) {
  feed_.apply(record);
  next_.write(record);
}

}  // namespace arec::record
