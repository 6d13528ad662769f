// backward_ring: reading a ring the kernel writes backward and overwrites (--overwrite: every
// event's attr.write_backward, its ring mapped read-only). The kernel moves data_head down by
// a record's size and writes the record at the new head, so from data_head upward the records
// run from the newest to the oldest, and nothing is ever handed back to the kernel. A snapshot
// takes what was written since the previous one, at most a ring's worth of whole records.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "record/streaming/ring_reader.hpp"

namespace arec::record {

// Positions [start, end) in a backward ring; start is the newest record's.
struct backward_range {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t size() const { return end - start; }
};

// The whole records written after the head was `previous_head` that the ring still holds, for
// a ring whose head is now `head`. As perf's overwrite_rb_find_range: when more than the ring's
// size was written, the records are walked from `head` up to the ring's size or to a zero
// header (space never written); the record that reaches past the ring's size lost its end to
// the newest records and is left out, as is one whose header cannot be a record's.
backward_range find_backward_range(std::span<const std::byte> data, std::uint64_t head,
                                   std::uint64_t previous_head);

// The bytes of `range` in the ring `data` (a power of two): two pieces when they wrap.
ring_chunk backward_chunk(std::span<const std::byte> data, backward_range range);

class backward_reader {
 public:
  // `data` is the data area; its size must be a power of two. A backward ring starts at head 0.
  backward_reader(const perf_event_mmap_page* control, std::span<const std::byte> data);

  // The records written since the previous take (newest first), still in the ring: copy them
  // out before the kernel may write again (the ring paused, PERF_EVENT_IOC_PAUSE_OUTPUT).
  ring_chunk take();
  // Bytes written since the previous take, which may exceed what the ring holds.
  std::uint64_t written_since_take() const;
  std::size_t capacity() const { return data_.size(); }

 private:
  std::uint64_t load_head() const;

  const perf_event_mmap_page* control_;
  std::span<const std::byte> data_;
  std::uint64_t previous_head_ = 0;
};

// Where each record keeps its time: a SAMPLE `sample_time_offset` bytes into its body, every
// other kernel record (sample_id_all) `trailer_time_from_end` bytes before its end.
struct record_time_layout {
  std::size_t sample_time_offset = 0;
  std::size_t trailer_time_from_end = 0;
};

// The records of several rings' snapshots (each a copy of a backward_chunk: newest first), as
// one run ordered by time, oldest first; records with equal times keep their ring's order.
std::vector<std::byte> order_by_time(std::span<const std::vector<std::byte>> rings,
                                     record_time_layout layout);

}  // namespace arec::record
