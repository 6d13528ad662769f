// eh_frame_index: the start addresses of an ELF file's FDEs, from the binary search table of
// its .eh_frame_hdr (PT_GNU_EH_FRAME). Every function a compiler emits has an FDE, symbols or
// not, so this is where each function of a stripped file begins.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

typedef struct Elf Elf;

namespace arec::symbols {

// The FDE start addresses (the file's own virtual addresses), sorted; empty when the file has
// no .eh_frame_hdr or its table is in an encoding other than the one linkers write
// (DW_EH_PE_datarel | DW_EH_PE_sdata4).
std::vector<std::uint64_t> read_fde_starts(Elf* elf);

// The same from the bytes of an .eh_frame_hdr loaded at `vaddr`.
std::vector<std::uint64_t> parse_fde_starts(std::span<const std::byte> header, std::uint64_t vaddr);

}  // namespace arec::symbols
