// jit_elf: a JIT runtime's perf map (symbols/perf_map_symbols) as a small ELF file that perf's own
// symbol loader reads, so that a recording can name JIT code through the build-id cache where
// perf would look for /tmp/perf-PID.map on the reporting host (absent for a container's process,
// or another machine's). docs/symbols.md, "JIT code in converted files".
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "perf_data/build_id.hpp"
#include "symbols/jitdump_symbols.hpp"

namespace arec::symbols {

struct jit_elf {
  perf_data::build_id id;        // SHA-1 of the pid (8 bytes), the text and the mapping
  std::vector<std::byte> image;  // the whole file
  std::uint64_t low = 0;         // the lowest address a function of the map starts at
  std::uint64_t high = 0;        // the highest one a function ends at
  std::size_t left_out = 0;      // lines beyond perf_map_table::max_symbols, not in the ELF
  std::size_t unwound = 0;       // functions whose call frame information is in .eh_frame
  std::size_t not_unwound = 0;   // functions whose call frame information was left out
};

// The addresses one ELF names: [start, end).
struct jit_code_range {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  bool operator==(const jit_code_range&) const = default;
};

// The ELF of process `pid`'s perf map `text` for its mapping of JIT code `mapping`, or nullopt
// when it names no function there: ET_DYN, one STT_FUNC symbol per function at its run-time
// address, cut at the mapping's bounds; one PT_LOAD and a SHT_NOBITS .text that are the
// mapping (p_vaddr and sh_addr its start, p_offset and sh_offset 0: no code is in the file;
// file and memory sizes its length), and a GNU build-id note. A mapping of the process's JIT
// code names it with pgoff 0: perf, which adjusts a user object's symbols by sh_addr -
// sh_offset, finds a function at ip - start + 0, and libdwfl (hotspot), which places the first
// PT_LOAD at start - pgoff, finds it at its run-time address; one ELF per mapping, so that it
// overlaps no other object in libdwfl's address space. Where the JIT reused memory the
// function written last owns it (perf_map_table::at): the symbols never overlap, and one
// function partly overwritten may have two.
// The call frame information of `functions` in the mapping (symbols/jit_eh_frame) is its
// .eh_frame, followed by an .eh_frame_hdr, in the first stretch of the mapping within 1 MiB of
// its start that holds no function, at the file offset its address gives: perf's libunwind
// reads both through the recording's mapping of the file. Without such a stretch the .eh_frame
// alone goes at the first multiple of 8 past the mapping's end, outside the segment: libdw reads
// it from the section, and perf, finding no table, never reads another file's bytes there
// (docs/symbols.md, "Unwinding through JIT code").
std::optional<jit_elf> make_jit_elf(pid_t pid, std::string_view text, jit_code_range mapping,
                                    std::span<const jitdump_code> functions = {});

}  // namespace arec::symbols
