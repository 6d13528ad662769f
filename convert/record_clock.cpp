#include "convert/record_clock.hpp"

#include <algorithm>
#include <cstring>

#include "base/unaligned.hpp"
#include "perf_data/perf_abi.hpp"
#include "perf_data/sample_layout.hpp"

namespace arec::convert {
namespace {

constexpr int header_bytes = sizeof(perf_data::record_header);
constexpr std::uint32_t last_kernel_type = 21;  // PERF_RECORD_AUX_OUTPUT_HW_ID, perf 6.1's last

int has(std::uint64_t sample_type, std::uint64_t bit) {
  return static_cast<int>(perf_data::field_bytes(sample_type, bit));
}

}  // namespace

record_clock::record_clock(std::span<const perf_data::event_entry> events) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    const perf_event_attr& attr = events[i].attr;
    time_layout layout;
    std::uint64_t type = attr.sample_type;
    if (type & PERF_SAMPLE_TIME) {
      layout.sample_offset = header_bytes + static_cast<int>(perf_data::sample_time_offset(type));
      if (attr.sample_id_all)
        layout.trailer_from_end = 8 + static_cast<int>(perf_data::trailer_bytes_after_time(type));
    }
    layouts_.push_back(layout);
    for (std::uint64_t id : events[i].ids) ids_.emplace_back(id, i);
  }
  std::sort(ids_.begin(), ids_.end());
  if (events.size() < 2) return;  // one attr: every record is read with its layout
  std::uint64_t first = events[0].attr.sample_type;
  if (first & PERF_SAMPLE_IDENTIFIER) {
    sample_id_offset_ = header_bytes;
    trailer_id_from_end_ = 8;
  } else if (first & PERF_SAMPLE_ID) {
    sample_id_offset_ = header_bytes + has(first, PERF_SAMPLE_IP) + has(first, PERF_SAMPLE_TID) +
                        has(first, PERF_SAMPLE_TIME) + has(first, PERF_SAMPLE_ADDR);
    trailer_id_from_end_ = 8 + has(first, PERF_SAMPLE_STREAM_ID) + has(first, PERF_SAMPLE_CPU);
  }
}

const record_clock::time_layout& record_clock::layout_for(std::span<const std::byte> record,
                                                          bool sample) const {
  int id_position =
      sample ? sample_id_offset_
             : (trailer_id_from_end_ < 0 ? -1
                                         : static_cast<int>(record.size()) - trailer_id_from_end_);
  if (id_position < header_bytes || static_cast<std::size_t>(id_position) + 8 > record.size())
    return layouts_.front();
  std::uint64_t id = base::load<std::uint64_t>(record, static_cast<std::size_t>(id_position));
  auto found = std::lower_bound(ids_.begin(), ids_.end(), std::pair{id, std::size_t{0}});
  if (found == ids_.end() || found->first != id) return layouts_.front();
  return layouts_[found->second];
}

std::optional<std::size_t> record_clock::time_offset(std::span<const std::byte> record) const {
  if (layouts_.empty() || record.size() < sizeof(perf_data::record_header)) return std::nullopt;
  std::uint32_t type = 0;
  std::memcpy(&type, record.data(), sizeof type);
  if (type == 0 || type > last_kernel_type) return std::nullopt;
  bool sample = type == PERF_RECORD_SAMPLE;
  const time_layout& layout = layout_for(record, sample);
  std::size_t offset = 0;
  if (sample) {
    if (layout.sample_offset < 0) return std::nullopt;
    offset = static_cast<std::size_t>(layout.sample_offset);
  } else {
    if (layout.trailer_from_end < 0 ||
        record.size() < static_cast<std::size_t>(header_bytes + layout.trailer_from_end))
      return std::nullopt;
    offset = record.size() - static_cast<std::size_t>(layout.trailer_from_end);
  }
  if (offset + 8 > record.size()) return std::nullopt;
  return offset;
}

std::optional<std::uint64_t> record_clock::time_of(std::span<const std::byte> record) const {
  std::optional<std::size_t> offset = time_offset(record);
  if (!offset) return std::nullopt;
  std::uint64_t time = base::load<std::uint64_t>(record, *offset);
  if (time == 0 || time == ~std::uint64_t{0}) return std::nullopt;
  return time;
}

}  // namespace arec::convert
