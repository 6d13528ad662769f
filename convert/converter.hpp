// converter: `arec convert` — merges every data range of a recording by timestamp into one
// perf.data file that perf 6.1 and hotspot read, streaming with bounded memory.
// Ordering assumptions and the memory bound: docs/convert.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "convert/convert_input.hpp"
#include "convert/convert_options.hpp"
#include "io/record_sink.hpp"

namespace arec::convert {

// How far a conversion got; handed to the progress hook (a terminal progress bar, later).
struct convert_progress {
  std::uint64_t bytes_read = 0;   // input bytes consumed so far, all files
  std::uint64_t bytes_total = 0;  // input bytes to read, all files
};

struct convert_settings {
  // Upper bound for the reorder windows, read buffers and output batch together (see
  // docs/convert.md for when a recording with very many data files needs more).
  std::size_t memory_budget = 64u << 20;
  // Called every few thousand records and once at the end; may be empty.
  std::function<void(const convert_progress&)> progress;
  // perf's build-id cache, where the ELFs of captured JIT maps go (convert/jit_mappings);
  // empty: symbols::default_build_id_dir(), where perf report looks.
  std::string build_id_dir;
};

// Records perf 6.1 could not read (record_check.hpp), dropped: one entry per problem.
struct rejected_records {
  std::string problem;
  std::uint64_t count = 0;
  std::string first;  // "FILE: offset N" of the first one
};

struct convert_report {
  std::size_t files = 0;            // data ranges read (header file's data section included)
  std::uint64_t input_bytes = 0;    // bytes of those ranges
  std::uint64_t records = 0;        // records written (FINISHED_ROUND excluded)
  std::uint64_t samples = 0;        // of which SAMPLE records
  std::uint64_t record_bytes = 0;   // their bytes, uncompressed
  std::uint64_t output_bytes = 0;   // data section written (after compression)
  std::uint64_t compressed_in = 0;  // COMPRESSED records read and expanded
  int compression_level = 0;        // of the output; 0 = plain records
  std::uint64_t late_records = 0;   // records that left the reorder window too late (out of order)
  // Records of types perf 6.1 does not know, dropped: how many of each type.
  std::map<std::uint32_t, std::uint64_t> unknown_records;
  std::vector<rejected_records> rejected;  // records perf 6.1 could not read, dropped
  // Features perf 6.1 could not read, dropped: what is wrong with each (feature_check.hpp).
  std::vector<std::string> dropped_features;
  std::uint64_t dropped_bytes = 0;    // salvage: bytes after the damage, not converted
  std::vector<std::string> notes;     // salvage: what was damaged and dropped, one line each
  std::size_t peak_window_bytes = 0;  // largest reorder-window memory, all streams together
  std::uint64_t jit_mappings = 0;     // anonymous code mappings that now name a JIT code ELF
  std::uint64_t jit_remapped = 0;     // mappings written again for a new JIT code generation
  std::vector<std::string> warnings;  // what was not done, one line each (JIT maps)
  // offcpu-time samples also written in hotspot's form (convert/off_cpu_switches.hpp); the
  // records made for them are not in `records`.
  std::uint64_t off_cpu_blocks = 0;
  // BUILD_ID entries added for files whose build-id only MMAP2 records carried (perf 6.17+).
  std::uint64_t mmap_build_ids = 0;
  // Samples given their deferred user stack (perf 7.x --call-graph fp,defer), and those whose
  // stack never came (kept with their own frames).
  // arec -g chains completed from CFI (completed_chains), those left as recorded (no CFI, stack
  // copy too short, JIT code), and those completed over a frameless frame that saved rbp.
  std::uint64_t chains_completed = 0;
  std::uint64_t chains_not_completed = 0;
  std::uint64_t chains_unverified = 0;
  std::uint64_t deferred_stitched = 0;
  std::uint64_t deferred_unmatched = 0;
};

// "84 BPF_METADATA (3), 85 SCHEDSTAT_CPU (9)": the dropped record types, named where perf names
// them, with their counts.
std::string describe_unknown_records(const std::map<std::uint32_t, std::uint64_t>& counts);

// Converts options.input into options.output (see the contract in docs/convert.md).
// Throws perf_data::format_error "FILE: offset N: PROBLEM" for malformed input (nothing is left
// at options.output then), std::system_error for failed system calls, usage_error when the
// output would overwrite the input or the compression options contradict each other.
convert_report convert(const convert_options& options, const convert_settings& settings = {});

// Hands every record of `input`'s data ranges to `sink` in time order, as convert() writes them
// (FINISHED_ROUND, FINISHED_INIT, types perf 6.1 does not know and records it cannot read left
// out): for readers of a
// recording other than the perf.data writer (arec export). The report counts what was read;
// its output fields stay 0. Throws as convert() does for malformed input.
convert_report merge_in_time_order(const convert_input& input, bool salvage, io::record_sink& sink,
                                   const convert_settings& settings = {});

}  // namespace arec::convert
