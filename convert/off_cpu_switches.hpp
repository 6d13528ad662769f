// off_cpu_switches: hotspot's form of a recording's off-CPU time, for `arec convert`.
// A recording's `offcpu-time` samples (arec --off-cpu, perf --off-cpu) carry the nanoseconds a
// thread was blocked as their period and where it blocked as their stack. hotspot 1.3 makes its
// "off-CPU Time" cost and timeline from other records: a thread's SWITCH out then SWITCH in,
// charged to the stack of that thread's last `sched:sched_switch` sample (hotspot's
// perfparser.cpp, addContextSwitch). For every offcpu-time sample this makes a
// `sched:sched_switch` sample with the same stack at the block's start, a SWITCH out there and
// a SWITCH in `period` ns later: the records hotspot's own recipe
// (`perf record -e sched:sched_switch --switch-events -g`) would have for that block.
// docs/convert.md, "Off-CPU time for hotspot".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "convert/convert_input.hpp"

namespace arec::convert {

class off_cpu_switches {
 public:
  struct entry {
    std::uint64_t time = 0;
    std::size_t offset = 0;  // in bytes_
    std::size_t size = 0;
  };

  // Reads every offcpu-time sample of `input` (a pass over its data before the merge) and makes
  // their records; nullopt when it has none, or no attr named offcpu-time with the fields needed
  // (TID, TIME, CPU, PERIOD, sample_id_all). Throws as the merge does for malformed input.
  static std::optional<off_cpu_switches> read(const convert_input& input, bool salvage);

  // The sched:sched_switch attr: a copy of offcpu-time's under a new id, its name.
  const perf_data::event_entry& event() const noexcept { return event_; }
  // The records in time order (a sample before the SWITCH out at its time).
  std::span<const entry> entries() const noexcept { return entries_; }
  std::span<const std::byte> bytes_of(const entry& e) const noexcept {
    return std::span<const std::byte>{bytes_}.subspan(e.offset, e.size);
  }
  std::uint64_t blocks() const noexcept { return blocks_; }

 private:
  // One offcpu-time sample as read, and where its block is laid out.
  struct block {
    std::uint32_t pid = 0;
    std::uint32_t tid = 0;
    std::uint32_t cpu = 0;
    std::uint64_t end = 0;          // the sample's time: the switch back in
    std::uint64_t period = 0;       // nanoseconds blocked
    std::size_t sample_offset = 0;  // its sched:sched_switch sample in bytes_
    std::size_t sample_size = 0;
  };
  explicit off_cpu_switches(perf_data::event_entry event) : event_(std::move(event)) {}
  void add(std::span<const std::byte> sample);
  void lay_out();
  void append_switch(const block& b, std::uint64_t time, bool out);

  perf_data::event_entry event_;
  std::vector<block> blocks_read_;
  std::vector<std::byte> bytes_;  // the records, back to back: one allocation, not one each
  std::vector<entry> entries_;
  std::uint64_t blocks_ = 0;
};

}  // namespace arec::convert
