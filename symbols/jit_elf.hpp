// jit_elf: a JIT runtime's perf map (symbols/perf_map_symbols) as a small ELF file that perf's own
// symbol loader reads, so that a recording can name JIT code through the build-id cache where
// perf would look for /tmp/perf-PID.map on the reporting host (absent for a container's process,
// or another machine's). docs/symbols.md, "JIT code in converted files".
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "perf_data/build_id.hpp"

namespace arec::symbols {

struct jit_elf {
  perf_data::build_id id;        // SHA-1 of the pid (8 bytes) and the map's text
  std::vector<std::byte> image;  // the whole file
  std::uint64_t low = 0;         // the lowest address a function of the map starts at
  std::uint64_t high = 0;        // the highest one a function ends at
  std::size_t left_out = 0;      // lines beyond perf_map_table::max_symbols, not in the ELF
};

// The ELF of process `pid`'s perf map `text`, or nullopt when it names no function: ET_DYN, one
// STT_FUNC symbol per function at its run-time address, in a SHT_NOBITS .text covering
// [low, high) and one PT_LOAD whose p_vaddr equals its p_offset (so perf names an address the
// same whether or not it adjusts symbols by the segment) and whose file and memory sizes both
// cover [low, high) (no code is in the file), and a GNU build-id note. Where the
// JIT reused memory the function written last owns it (perf_map_table::at): the symbols
// never overlap, and one function partly overwritten may have two. A mapping of JIT code
// resolves through it with pgoff equal to the mapping's start (map_ip(ip) == ip).
std::optional<jit_elf> make_jit_elf(pid_t pid, std::string_view text);

}  // namespace arec::symbols
