// ring_buffer: the mapping of one perf event's ring (1 control page + 2^n data pages) and its
// reader.
#pragma once

#include <cstddef>

#include "io/mmap_region.hpp"
#include "record/events/perf_event.hpp"
#include "record/streaming/backward_ring.hpp"
#include "record/streaming/ring_reader.hpp"

namespace arec::record {

class ring_buffer {
 public:
  // Maps `data_pages` (a power of two) data pages of `owner`. Throws std::system_error; EPERM
  // there usually means RLIMIT_MEMLOCK / perf_event_mlock_kb is too small for the rings.
  // `overwrite` (--overwrite) maps it read-only: the kernel then never waits for a tail and
  // overwrites the oldest records (the events must write backward); read it with backward().
  static ring_buffer map(const perf_event& owner, std::size_t data_pages, int cpu,
                         bool overwrite = false);
  // The most data pages, a power of two up to `wanted`, that the kernel maps for `owner`:
  // halved while mmap fails with ENOMEM, which the kernel answers for a ring whose page table
  // it cannot allocate in one piece (on x86-64 with 4 KiB pages: more than 2^18 pages, 1 GiB)
  // or when memory is short. Other errors are thrown as map() throws them, and ENOMEM at one
  // page too. The probe's mapping is gone on return.
  static std::size_t largest_mappable(const perf_event& owner, std::size_t wanted);
  // Takes over a mapping laid out like a perf ring: a perf_event_mmap_page in the first page,
  // then a power-of-two number of data pages (tests give the streamer an anonymous one).
  // Throws std::invalid_argument when the data area is not a power of two.
  static ring_buffer adopt(io::mmap_region mapping);

  ring_reader& reader() { return reader_; }
  backward_reader& backward() { return backward_; }
  std::size_t mapping_size() const { return mapping_.size(); }

 private:
  ring_buffer(io::mmap_region mapping, ring_reader reader, backward_reader backward)
      : mapping_(std::move(mapping)), reader_(reader), backward_(backward) {}
  io::mmap_region mapping_;
  ring_reader reader_;  // never consume() from a read-only (overwrite) mapping
  backward_reader backward_;
};

}  // namespace arec::record
