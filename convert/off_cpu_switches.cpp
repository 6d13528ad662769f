#include "convert/off_cpu_switches.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <tuple>

#include "base/unaligned.hpp"
#include "perf_data/record_walker.hpp"
#include "perf_data/sample_layout.hpp"

namespace arec::convert {
namespace {

constexpr std::size_t header_bytes = sizeof(perf_data::record_header);
constexpr std::size_t read_buffer_bytes = 512 * 1024;
// Every field the records need: who, when, where, how long; and a trailer on SWITCH records.
constexpr std::uint64_t needed_fields =
    PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

const perf_data::event_entry* off_cpu_event(std::span<const perf_data::event_entry> events) {
  for (const perf_data::event_entry& event : events)
    if (event.name == "offcpu-time" && event.attr.sample_id_all &&
        (event.attr.sample_type & needed_fields) == needed_fields)
      return &event;
  return nullptr;
}

std::uint64_t unused_id(std::span<const perf_data::event_entry> events) {
  std::uint64_t largest = 0;
  for (const perf_data::event_entry& event : events)
    for (std::uint64_t id : event.ids) largest = std::max(largest, id);
  return largest + 1;
}

// Where a SAMPLE keeps the id perf reads to find its attr: the first attr decides (perf
// requires every attr to agree); -1 when samples carry none.
long sample_id_position(std::span<const perf_data::event_entry> events) {
  std::uint64_t type = events.front().attr.sample_type;
  if (!(type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))) return -1;
  return static_cast<long>(header_bytes + perf_data::sample_id_offset(type));
}

}  // namespace

std::optional<off_cpu_switches> off_cpu_switches::read(const convert_input& input, bool salvage) {
  if (input.events.empty()) return std::nullopt;
  const perf_data::event_entry* source = off_cpu_event(input.events);
  long id_at = sample_id_position(input.events);
  if (source == nullptr || source->ids.empty() || id_at < 0) return std::nullopt;

  perf_data::event_entry event{source->attr, "sched:sched_switch", {unused_id(input.events)}};
  off_cpu_switches made{std::move(event)};
  for (const perf_data::data_range& range : input.ranges) {
    perf_data::record_walker walker = perf_data::record_walker::open(
        range, {.salvage = salvage, .buffer_bytes = read_buffer_bytes});
    while (std::optional<perf_data::walked_record> record = walker.next()) {
      if (record->header.type != PERF_RECORD_SAMPLE) continue;
      if (record->bytes.size() < static_cast<std::size_t>(id_at) + sizeof(std::uint64_t)) continue;
      auto id = base::load<std::uint64_t>(record->bytes, static_cast<std::size_t>(id_at));
      if (std::find(source->ids.begin(), source->ids.end(), id) != source->ids.end())
        made.add(record->bytes);
    }
  }
  if (made.blocks_read_.empty()) return std::nullopt;
  made.lay_out();
  return made;
}

// Keeps the sample as its sched:sched_switch copy: the new id, period 1 (one switch), the time
// set when laid out.
void off_cpu_switches::add(std::span<const std::byte> sample) {
  std::uint64_t type = event_.attr.sample_type;
  std::size_t period_at = header_bytes + perf_data::sample_period_offset(type);
  if (sample.size() < period_at + sizeof(std::uint64_t)) return;
  block b;
  std::size_t tid_at = header_bytes + perf_data::sample_tid_offset(type);
  b.pid = base::load<std::uint32_t>(sample, tid_at);
  b.tid = base::load<std::uint32_t>(sample, tid_at + sizeof(std::uint32_t));
  b.end = base::load<std::uint64_t>(sample, header_bytes + perf_data::sample_time_offset(type));
  b.cpu = base::load<std::uint32_t>(sample, header_bytes + perf_data::sample_cpu_offset(type));
  b.period = base::load<std::uint64_t>(sample, period_at);
  if (b.period == 0) return;
  b.sample_offset = bytes_.size();
  b.sample_size = sample.size();
  bytes_.insert(bytes_.end(), sample.begin(), sample.end());
  std::span<std::byte> copy = std::span<std::byte>{bytes_}.subspan(b.sample_offset, b.sample_size);
  std::uint64_t id = event_.ids.front();
  if (type & PERF_SAMPLE_IDENTIFIER) base::store(copy, header_bytes, id);
  if (type & PERF_SAMPLE_ID)  // after TIME and ADDR
    base::store(copy,
                header_bytes + perf_data::sample_time_offset(type) +
                    perf_data::field_bytes(type, PERF_SAMPLE_TIME) +
                    perf_data::field_bytes(type, PERF_SAMPLE_ADDR),
                id);
  base::store(copy, period_at, std::uint64_t{1});
  blocks_read_.push_back(b);
}

// A block ends at its sample's time and lasted its period. Summed blocks (arec's sums of those
// under --off-cpu-thresh, written at a cut or the end; all of perf's) did not happen as one
// stretch, and a thread's stretches must not overlap for hotspot to pair each SWITCH in with its
// out: laid out from the thread's last block back, a block that would end after the next one
// began ends just before it instead, keeping its length (and so within the recording). Blocks
// recorded one by one never overlap and keep their times unless a sum was placed over them.
void off_cpu_switches::lay_out() {
  std::sort(blocks_read_.begin(), blocks_read_.end(), [](const block& a, const block& b) {
    return std::tuple{a.pid, a.tid, b.end, b.period} < std::tuple{b.pid, b.tid, a.end, a.period};
  });
  std::uint64_t type = event_.attr.sample_type;
  std::size_t time_at = header_bytes + perf_data::sample_time_offset(type);
  const block* later = nullptr;  // the block laid out before this one: the thread's next
  std::uint64_t later_start = 0;
  for (const block& b : blocks_read_) {
    std::uint64_t end = b.end;
    bool same_thread = later && later->pid == b.pid && later->tid == b.tid;
    // Strictly before: at one time a reader may order this SWITCH in after the next sample.
    if (same_thread && end >= later_start)
      end = later_start - std::min<std::uint64_t>(later_start, 1);
    std::uint64_t start = end - std::min(end, b.period);
    base::store(std::span<std::byte>{bytes_}.subspan(b.sample_offset, b.sample_size), time_at,
                start);
    entries_.push_back({start, b.sample_offset, b.sample_size});
    append_switch(b, start, true);
    append_switch(b, end, false);
    later = &b;
    later_start = start;
  }
  blocks_ = blocks_read_.size();
  // Each block's three records are in order already; stable keeps them so at equal times.
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const entry& a, const entry& b) { return a.time < b.time; });
}

// PERF_RECORD_SWITCH with its sample_id trailer, laid out by the attr's sample_type.
void off_cpu_switches::append_switch(const block& b, std::uint64_t time, bool out) {
  std::uint64_t type = event_.attr.sample_type;
  std::size_t size = header_bytes + perf_data::sample_id_trailer_size(type);
  std::size_t offset = bytes_.size();
  bytes_.resize(offset + size);
  std::span<std::byte> record = std::span<std::byte>{bytes_}.subspan(offset, size);
  perf_data::record_header header{PERF_RECORD_SWITCH,
                                  static_cast<std::uint16_t>(out ? PERF_RECORD_MISC_SWITCH_OUT : 0),
                                  static_cast<std::uint16_t>(size)};
  std::memcpy(record.data(), &header, sizeof header);
  std::size_t at = header_bytes;
  auto put = [&](std::uint64_t bit, auto value) {
    if (!(type & bit)) return;
    base::store(record, at, value);
    at += sizeof(std::uint64_t);
  };
  std::uint64_t id = event_.ids.front();
  put(PERF_SAMPLE_TID, (std::uint64_t{b.tid} << 32) | b.pid);
  put(PERF_SAMPLE_TIME, time);
  put(PERF_SAMPLE_ID, id);
  put(PERF_SAMPLE_STREAM_ID, std::uint64_t{0});
  put(PERF_SAMPLE_CPU, std::uint64_t{b.cpu});
  put(PERF_SAMPLE_IDENTIFIER, id);
  entries_.push_back({time, offset, size});
}

}  // namespace arec::convert
