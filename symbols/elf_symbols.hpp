// elf_symbols: the function symbols of an ELF file (.symtab, else .dynsym) and its loadable
// segments, read once with libelf, so that a file offset seen in a mapping can be named.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "perf_data/build_id.hpp"

namespace arec::symbols {

struct elf_symbol {
  std::uint64_t start = 0;  // st_value: a virtual address of the file's own layout
  std::uint64_t size = 0;   // 0 when the symbol table does not say
  std::string name;         // as in the table (mangled)
  std::uint8_t binding = 0;  // STB_LOCAL, STB_GLOBAL or STB_WEAK: which alias perf shows
};

struct elf_segment {
  std::uint64_t offset = 0;  // p_offset
  std::uint64_t vaddr = 0;   // p_vaddr
  std::uint64_t size = 0;    // p_filesz
};

struct elf_symbol_table {
  std::vector<elf_symbol> symbols;    // functions (STT_FUNC, STT_GNU_IFUNC), sorted by start
  std::vector<elf_segment> segments;  // PT_LOAD, in file order
  std::vector<std::uint64_t> function_starts;  // each FDE's start (eh_frame_index), sorted
  perf_data::build_id id;             // the GNU build-id note, empty if none
  bool full = false;  // from .symtab (every function), not only .dynsym (the exported ones)

  // The virtual address that file offset `offset` is loaded at, or nullopt when no loadable
  // segment holds it.
  std::optional<std::uint64_t> vaddr_of_offset(std::uint64_t offset) const noexcept;
  // The symbol covering `vaddr` (the nearest one at or below it, within its size when the
  // table gives one), or nullptr.
  const elf_symbol* find(std::uint64_t vaddr) const noexcept;
  // The start of the last FDE at or below `vaddr`: the function holding it, provided an FDE
  // covers `vaddr` at all (which only the CFI reader can tell), or nullopt.
  std::optional<std::uint64_t> function_start(std::uint64_t vaddr) const noexcept;
};

// Reads `path`'s symbols, segments and build-id. nullopt when the file cannot be opened or is
// not ELF: callers then have no names for it, which is an expected outcome (deleted, no access).
std::optional<elf_symbol_table> read_elf_symbols(const char* path);
// The same for an ELF image in memory (the vdso); nullopt when it is not ELF.
std::optional<elf_symbol_table> read_elf_symbols(std::span<const std::byte> image);

// Whether the ELF file open at `fd` has a .symtab (every function named, not only the exported
// ones): such a file needs no separate debug file. False for what is not ELF.
bool has_symbol_table(int fd);

}  // namespace arec::symbols
