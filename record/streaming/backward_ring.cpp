#include "record/streaming/backward_ring.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstring>

#include "perf_data/perf_abi.hpp"

namespace arec::record {
namespace {

constexpr std::size_t header_size = sizeof(perf_data::record_header);

// Records are 8-byte aligned and the ring a power of two, so a header never wraps.
perf_data::record_header header_at(std::span<const std::byte> data, std::uint64_t position) {
  perf_data::record_header header;
  std::memcpy(&header, data.data() + (position & (data.size() - 1)), header_size);
  return header;
}

std::uint64_t read_u64(const std::byte* at) {
  std::uint64_t value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

struct record_ref {
  std::uint64_t time;
  const std::byte* bytes;
  std::size_t size;
};

std::uint64_t record_time(const std::byte* record, std::size_t size, record_time_layout layout) {
  perf_data::record_header header;
  std::memcpy(&header, record, header_size);
  if (header.type == PERF_RECORD_SAMPLE) {
    std::size_t at = header_size + layout.sample_time_offset;
    return at + 8 <= size ? read_u64(record + at) : 0;
  }
  if (layout.trailer_time_from_end + header_size > size) return 0;
  return read_u64(record + size - layout.trailer_time_from_end);
}

}  // namespace

backward_range find_backward_range(std::span<const std::byte> data, std::uint64_t head,
                                   std::uint64_t previous_head) {
  assert(!data.empty() && (data.size() & (data.size() - 1)) == 0);
  backward_range range{head, previous_head};
  if (range.size() <= data.size()) return range;  // nothing written since was overwritten
  std::uint64_t position = head;
  for (;;) {
    std::uint64_t walked = position - head;
    if (walked + header_size > data.size()) break;
    perf_data::record_header header = header_at(data, position);
    if (header.size < header_size || header.size % 8 != 0) break;  // never written, or torn
    if (walked + header.size > data.size()) break;                 // its end was overwritten
    position += header.size;
  }
  range.end = position;
  return range;
}

ring_chunk backward_chunk(std::span<const std::byte> data, backward_range range) {
  std::size_t mask = data.size() - 1;
  std::size_t start = range.start & mask;
  std::size_t length = range.size();
  std::size_t first = std::min(length, data.size() - start);
  ring_chunk chunk;
  chunk.end_position = range.end;
  chunk.pieces[0] = {data.data() + start, first};
  chunk.pieces[1] = {data.data(), length - first};
  return chunk;
}

backward_reader::backward_reader(const perf_event_mmap_page* control,
                                 std::span<const std::byte> data)
    : control_(control), data_(data) {
  assert(!data.empty() && (data.size() & (data.size() - 1)) == 0);
}

std::uint64_t backward_reader::load_head() const {
  // As for a forward ring: the records from the head on are complete once it is published.
  return std::atomic_ref<const __u64>(control_->data_head).load(std::memory_order_acquire);
}

std::uint64_t backward_reader::written_since_take() const {
  return previous_head_ - load_head();
}

ring_chunk backward_reader::take() {
  std::uint64_t head = load_head();
  backward_range range = find_backward_range(data_, head, previous_head_);
  previous_head_ = head;
  return backward_chunk(data_, range);
}

std::vector<std::byte> order_by_time(std::span<const std::vector<std::byte>> rings,
                                     record_time_layout layout) {
  std::vector<record_ref> records;
  std::size_t total = 0;
  for (const std::vector<std::byte>& ring : rings) {
    std::size_t first = records.size();
    for (std::size_t at = 0; at + header_size <= ring.size();) {
      perf_data::record_header header;
      std::memcpy(&header, ring.data() + at, header_size);
      if (header.size < header_size || at + header.size > ring.size()) break;
      records.push_back(
          {record_time(ring.data() + at, header.size, layout), ring.data() + at, header.size});
      total += header.size;
      at += header.size;
    }
    std::reverse(records.begin() + static_cast<std::ptrdiff_t>(first), records.end());
  }
  std::stable_sort(records.begin(), records.end(),
                   [](const record_ref& a, const record_ref& b) { return a.time < b.time; });
  std::vector<std::byte> ordered(total);
  std::size_t at = 0;
  for (const record_ref& record : records) {
    std::memcpy(ordered.data() + at, record.bytes, record.size);
    at += record.size;
  }
  return ordered;
}

}  // namespace arec::record
