// jit_eh_frame: the call frame information a jitdump gives its functions (UNWINDING_INFO
// records), moved into one .eh_frame section of a JIT mapping's ELF (symbols/jit_elf), so that
// an unwinder that reads an object's .eh_frame (libdw: arec export and --push, hotspot) steps
// through JIT code that keeps no frame pointer. docs/symbols.md, "Unwinding through JIT code".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "symbols/jitdump_symbols.hpp"

namespace arec::symbols {

// One FDE of the section: the first address it covers, and where it is in the section.
struct jit_fde {
  std::uint64_t first = 0;
  std::size_t offset = 0;
};

struct jit_eh_frame {
  std::vector<std::byte> bytes;  // the section; empty when no function's entries were kept
  std::vector<jit_fde> fdes;     // in the section's order
  std::size_t functions = 0;     // functions whose entries it holds
  std::size_t refused = 0;       // functions with entries left out (merge_jit_eh_frames)
};

// The .eh_frame section, to be placed at `address`, of the functions of `code` that lie in
// [low, high) and have call frame information: each one's entries in their order, their
// PC-relative pointers rewritten for the new place, then a terminator. A function's entries
// are left out, and counted, when they are not what a runtime writes for it: an entry cut short
// or of 64-bit length, an FDE without its CIE, a pointer encoding other than absolute or
// PC-relative, a personality routine or LSDA (their pointers would need moving too), an FDE
// outside the function's code, or a pointer the new place cannot hold. A function that code
// loaded later in `code` overlaps has none: its code was gone from there by then (`code` is in
// time order, or in the dump's where times cannot be placed: the record written last wins, as
// it names the code).
jit_eh_frame merge_jit_eh_frames(std::span<const jitdump_code> code, std::uint64_t low,
                                 std::uint64_t high, std::uint64_t address);

// The .eh_frame_hdr of `frames` placed at `frames_at`, itself at `address`: the binary search
// table (DW_EH_PE_datarel | sdata4, the one encoding every reader takes) that perf's libunwind
// needs to use a section. Empty when an offset does not fit in 32 bits.
std::vector<std::byte> jit_eh_frame_header(const jit_eh_frame& frames, std::uint64_t frames_at,
                                           std::uint64_t address);

}  // namespace arec::symbols
