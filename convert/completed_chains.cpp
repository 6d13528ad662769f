#include "convert/completed_chains.hpp"

#include <linux/perf_event.h>

#include <cstring>

#include "perf_data/perf_abi.hpp"
#include "perf_data/sample_layout.hpp"
#include "base/unaligned.hpp"

namespace arec::convert {
namespace {

constexpr std::size_t header_bytes = sizeof(perf_data::record_header);

bool completes(const perf_event_attr& attr) {
  std::uint64_t type = attr.sample_type;
  return (type & PERF_SAMPLE_CALLCHAIN) && (type & PERF_SAMPLE_STACK_USER) &&
         !(type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_READ));
}

bool is_side_band(std::uint32_t type) {
  return type == PERF_RECORD_COMM || type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT ||
         type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2;
}

// Where the STACK_USER copy starts (its size word), after CALLCHAIN at `after_chain`: RAW and
// BRANCH_STACK may sit between. nullopt when the record is too short.
std::optional<std::size_t> stack_offset(std::span<const std::byte> record, std::size_t at,
                                        const perf_event_attr& attr) {
  auto fits = [&](std::size_t bytes) { return at <= record.size() && record.size() - at >= bytes; };
  if (attr.sample_type & PERF_SAMPLE_RAW) {
    if (!fits(4)) return std::nullopt;
    at += (base::load<std::uint32_t>(record, at) + 4 + 7) / 8 * 8;
  }
  if (attr.sample_type & PERF_SAMPLE_BRANCH_STACK) {
    if (!fits(8)) return std::nullopt;
    std::uint64_t count = base::load<std::uint64_t>(record, at);
    if (count > 4096) return std::nullopt;
    at += 8 + ((attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) ? 8 : 0) + 24 * count;
  }
  if (!fits(8)) return std::nullopt;
  return at;
}

}  // namespace

std::optional<completed_chains> completed_chains::for_events(
    std::span<const perf_data::event_entry> events) {
  std::vector<attr_layout> attrs;
  bool any = false;
  for (const perf_data::event_entry& event : events) {
    attrs.push_back({event.attr, event.ids, completes(event.attr)});
    any = any || attrs.back().completes;
  }
  if (!any) return std::nullopt;
  std::uint64_t first = attrs.front().attr.sample_type;
  long id_at = -1;
  if (attrs.size() > 1 && (first & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)))
    id_at = static_cast<long>(header_bytes + perf_data::sample_id_offset(first));
  return completed_chains(std::move(attrs), id_at);
}

completed_chains::completed_chains(std::vector<attr_layout> attrs, long id_at)
    : attrs_(std::move(attrs)),
      id_at_(id_at),
      completer_(std::make_unique<symbols::callchain_completer>()) {}

const completed_chains::attr_layout* completed_chains::attr_of(
    std::span<const std::byte> sample) const {
  if (id_at_ < 0) return &attrs_.front();
  auto at = static_cast<std::size_t>(id_at_);
  if (sample.size() < at + 8) return nullptr;
  auto id = base::load<std::uint64_t>(sample, at);
  for (const attr_layout& attr : attrs_)
    for (std::uint64_t known : attr.ids)
      if (known == id) return &attr;
  return &attrs_.front();  // as perf: an unknown id is the first attr's
}

std::span<const std::byte> completed_chains::rewrite(std::span<const std::byte> record) {
  if (record.size() < header_bytes) return record;
  auto type = base::load<std::uint32_t>(record, 0);
  if (is_side_band(type)) completer_->side_band(record);
  if (type != PERF_RECORD_SAMPLE) return record;
  const attr_layout* layout = attr_of(record);
  if (!layout || !layout->completes || !(layout->attr.sample_type & PERF_SAMPLE_TID))
    return record;
  const perf_event_attr& attr = layout->attr;
  std::size_t chain_at = header_bytes + perf_data::sample_callchain_offset(attr.sample_type);
  if (record.size() < chain_at + 8) return record;
  std::uint64_t count = base::load<std::uint64_t>(record, chain_at);
  if (count > (record.size() - chain_at - 8) / 8) return record;
  std::size_t chain_end = chain_at + 8 + 8 * count;
  std::optional<std::size_t> stack_at = stack_offset(record, chain_end, attr);
  if (!stack_at) return record;
  std::uint64_t size = base::load<std::uint64_t>(record, *stack_at);
  if (size > record.size() - *stack_at - 8 || (size != 0 && record.size() - *stack_at - 8 - size < 8))
    return record;
  std::uint64_t filled = size == 0 ? 0 : base::load<std::uint64_t>(record, *stack_at + 8 + size);
  std::span<const std::byte> stack = record.subspan(*stack_at + 8, std::min(size, filled));

  chain_.resize(count);
  std::memcpy(chain_.data(), record.data() + chain_at + 8, 8 * count);
  std::size_t tid_at = header_bytes + perf_data::sample_tid_offset(attr.sample_type);
  auto pid = static_cast<pid_t>(base::load<std::uint32_t>(record, tid_at));
  auto tid = static_cast<pid_t>(base::load<std::uint32_t>(record, tid_at + 4));
  std::span<const std::uint64_t> completed = completer_->complete(pid, tid, chain_, stack);
  if (completed.data() == chain_.data()) return record;
  std::size_t size_now = record.size() + 8 * (completed.size() - count);
  if (size_now > 0xffff) return record;  // a record's size is 16 bits
  buffer_.resize(size_now);
  std::memcpy(buffer_.data(), record.data(), chain_at);
  auto header_size = static_cast<std::uint16_t>(size_now);
  std::memcpy(buffer_.data() + offsetof(perf_data::record_header, size), &header_size,
              sizeof header_size);
  std::uint64_t new_count = completed.size();
  std::memcpy(buffer_.data() + chain_at, &new_count, 8);
  std::memcpy(buffer_.data() + chain_at + 8, completed.data(), 8 * completed.size());
  std::memcpy(buffer_.data() + chain_at + 8 + 8 * completed.size(), record.data() + chain_end,
              record.size() - chain_end);
  return buffer_;
}

}  // namespace arec::convert
