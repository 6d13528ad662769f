// record_scan: reads the headers of the records in a drained chunk (never their payload,
// except a sample's time and a loss count) to keep the counters of the summary, and mends the
// one header the kernel gets wrong (see clear_leaked_build_id_flags).
#pragma once

#include <cstdint>
#include <span>

#include "record/streaming/ring_reader.hpp"
#include "record/streaming/stream_stats.hpp"

namespace arec::record {

// What must be mended in drained records before anything reads or writes them. The ring's data
// pages are read-only to its reader (a write there is a SIGBUS), so a chunk that needs mending
// is mended in a copy: the scan only says whether one is needed.
struct record_fixups {
  // The kernel (up to at least 6.18) leaves PERF_RECORD_MISC_MMAP_BUILD_ID set in the MMAP2
  // records of every session on the machine once any session asked for build-ids: their body
  // still holds device and inode, which a reader takes for a 254-byte build-id (perf 6.1
  // aborts). When arec did not ask for build-ids, no MMAP2 of its own can carry one: the flag
  // is cleared.
  bool clear_leaked_build_id_flags = false;
  // --off-cpu: records consumed while draining, never written (nor counted): the samples of
  // these ids (the switch sampler's, sorted; the id `sample_id_offset` bytes into a sample's
  // body) and, unless the user asked for them, the SWITCH records.
  std::span<const std::uint64_t> dropped_sample_ids;
  std::size_t sample_id_offset = 0;
  bool drop_switches = false;
};

// Adds the samples, losses and sample times of every record in `chunk` to `stats`; a sample's
// time is read `sample_time_offset` bytes into its body (perf_data::sample_time_offset of the
// attrs' shared sample_type). Returns whether a record in it needs `fixups` (mend_records on a
// copy).
bool scan_records(const ring_chunk& chunk, stream_stats& stats, std::size_t sample_time_offset,
                  record_fixups fixups = {});

// Applies `fixups` to the whole records in `records` (a copy of a chunk), moving the records it
// keeps to the front; returns their size.
std::size_t mend_records(std::span<std::byte> records, record_fixups fixups);

}  // namespace arec::record
