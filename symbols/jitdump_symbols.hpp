// jitdump_symbols: the functions a captured jitdump (host/jitdump) names. Its CODE_LOAD and
// CODE_MOVE records in the dump's order, with their times (symbols/jit_code_timeline places
// them on the samples' clock), and as the perf-map text every reader of JIT names already
// takes (symbols/perf_map_symbols): one "START SIZE NAME" line per CODE_LOAD, and one per
// CODE_MOVE at the code's new place, so that where a runtime reused memory the record written
// last names the code, as in a perf map (for a dump whose times cannot be placed).
// A dump is its process's own text, as a perf map is: the same bounds apply to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "symbols/jit_lines.hpp"

namespace arec::symbols {

// One CODE_LOAD, or a CODE_MOVE with the name its code was loaded with.
struct jitdump_code {
  std::uint64_t time = 0;  // the record's timestamp, on the dump's clock
  std::uint64_t start = 0;
  std::uint64_t size = 0;
  std::optional<std::uint64_t> moved_from;  // a CODE_MOVE's old address
  std::string_view name;                    // into the dump's bytes
  // A CODE_LOAD's call frame information: the .eh_frame part of the UNWINDING_INFO record
  // before it (into the dump's bytes), laid out for an address of start + size rounded up to 8,
  // where the runtime puts it (and perf inject after its copy of the code). Empty when the dump
  // has none for the function, or is in the other byte order.
  std::span<const std::byte> eh_frame;
  // The source lines of the DEBUG_INFO record before a CODE_LOAD of the same address (a
  // CODE_MOVE has its load's), by offset into the code; null when the dump has none.
  std::shared_ptr<const jit_line_table> lines;
};

// The dump's CODE_LOAD and CODE_MOVE records (the others carry no name) in its order; a dump
// cut short or malformed gives its whole records before that. A CODE_MOVE of code no CODE_LOAD
// named is left out.
std::vector<jitdump_code> jitdump_code_records(std::span<const std::byte> dump);

// True when the dump's header says its times are the CPU's counter
// (JITDUMP_FLAGS_ARCH_TIMESTAMP: the TSC), not CLOCK_MONOTONIC: nothing arec reads relates
// them to the samples' clock.
bool jitdump_times_are_arch(std::span<const std::byte> dump);

// The perf-map lines of `records`, in their order.
std::string perf_map_of(std::span<const jitdump_code> records);

// The perf-map lines of the dump's CODE_LOAD and CODE_MOVE records.
std::string jitdump_as_perf_map(std::span<const std::byte> dump);

}  // namespace arec::symbols
