#include "symbols/elf_symbols.hpp"

#include <gelf.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "host/mapped_file.hpp"
#include "io/unique_fd.hpp"
#include "symbols/eh_frame_index.hpp"
#include "symbols/elf_build_id.hpp"
#include "symbols/mini_debuginfo.hpp"
#include "symbols/vdso_image.hpp"

namespace arec::symbols {
namespace {

struct elf_closer {
  void operator()(Elf* elf) const noexcept { elf_end(elf); }
};
using elf_handle = std::unique_ptr<Elf, elf_closer>;

bool is_function(const GElf_Sym& symbol) {
  int type = GELF_ST_TYPE(symbol.st_info);
  return (type == STT_FUNC || type == STT_GNU_IFUNC) && symbol.st_shndx != SHN_UNDEF &&
         symbol.st_value != 0;
}

// The functions of the first section of type `type`; false when there is none.
bool read_section_symbols(Elf* elf, Elf64_Word type, std::vector<elf_symbol>& out) {
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section; section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (!gelf_getshdr(section, &header) || header.sh_type != type || header.sh_entsize == 0)
      continue;
    Elf_Data* data = elf_getdata(section, nullptr);
    if (!data) return false;
    std::size_t count = header.sh_size / header.sh_entsize;
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Sym symbol;
      if (!gelf_getsym(data, static_cast<int>(i), &symbol) || !is_function(symbol)) continue;
      const char* name = elf_strptr(elf, header.sh_link, symbol.st_name);
      if (!name || !*name) continue;
      out.push_back({symbol.st_value, symbol.st_size, name,
                     static_cast<std::uint8_t>(GELF_ST_BIND(symbol.st_info))});
    }
    return true;
  }
  return false;
}

void read_segments(Elf* elf, std::vector<elf_segment>& out) {
  std::size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr header;
    if (gelf_getphdr(elf, static_cast<int>(i), &header) && header.p_type == PT_LOAD)
      out.push_back({header.p_offset, header.p_vaddr, header.p_filesz});
  }
}

std::size_t leading_underscores(const std::string& name) {
  return std::min(name.find_first_not_of('_'), name.size());
}

// Of two symbols at one address, whether `a` is the name perf 6.1 shows (choose_best_symbol in
// tools/perf/util/symbol.c): a sized one, a strong one, a global one, the fewest leading
// underscores, the longest name. The vdso's __vdso_clock_gettime beats its weak clock_gettime.
bool shown_by_perf(const elf_symbol& a, const elf_symbol& b) {
  if ((a.size != 0) != (b.size != 0)) return a.size != 0;
  if ((a.binding == STB_WEAK) != (b.binding == STB_WEAK)) return b.binding == STB_WEAK;
  if ((a.binding == STB_GLOBAL) != (b.binding == STB_GLOBAL)) return a.binding == STB_GLOBAL;
  std::size_t a_under = leading_underscores(a.name), b_under = leading_underscores(b.name);
  if (a_under != b_under) return a_under < b_under;
  return a.name.size() >= b.name.size();  // a tie keeps the first in table order
}

// One symbol per address, perf's choice among aliases, sorted by address.
void keep_one_per_address(std::vector<elf_symbol>& symbols) {
  std::stable_sort(symbols.begin(), symbols.end(),
                   [](const elf_symbol& a, const elf_symbol& b) { return a.start < b.start; });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    if (kept > 0 && symbols[kept - 1].start == symbols[i].start) {
      if (!shown_by_perf(symbols[kept - 1], symbols[i])) symbols[kept - 1] = std::move(symbols[i]);
      continue;
    }
    if (kept != i) symbols[kept] = std::move(symbols[i]);
    ++kept;
  }
  symbols.resize(kept);
}

// The functions of `elf`'s MiniDebugInfo, which holds those .dynsym lacks: false when none.
bool add_mini_debuginfo_symbols(Elf* elf, std::vector<elf_symbol>& out) {
  std::optional<std::vector<std::byte>> image = read_mini_debuginfo(elf);
  if (!image) return false;
  elf_handle mini{elf_memory(reinterpret_cast<char*>(image->data()), image->size())};
  if (!mini || elf_kind(mini.get()) != ELF_K_ELF) return false;
  return read_section_symbols(mini.get(), SHT_SYMTAB, out);
}

// Symbols and segments of an open ELF; the build-id is the caller's.
std::optional<elf_symbol_table> read_table(Elf* elf) {
  if (!elf || elf_kind(elf) != ELF_K_ELF) return std::nullopt;
  elf_symbol_table table;
  table.full = read_section_symbols(elf, SHT_SYMTAB, table.symbols);
  if (!table.full) {
    read_section_symbols(elf, SHT_DYNSYM, table.symbols);
    // Fedora's and RHEL's binaries: the local functions, xz-compressed in .gnu_debugdata.
    add_mini_debuginfo_symbols(elf, table.symbols);
  }
  keep_one_per_address(table.symbols);
  read_segments(elf, table.segments);
  table.function_starts = read_fde_starts(elf);
  return table;
}

}  // namespace

std::optional<std::uint64_t> elf_symbol_table::vaddr_of_offset(
    std::uint64_t offset) const noexcept {
  for (const elf_segment& segment : segments)
    if (offset >= segment.offset && offset - segment.offset < segment.size)
      return offset - segment.offset + segment.vaddr;
  return std::nullopt;
}

const elf_symbol* elf_symbol_table::find(std::uint64_t vaddr) const noexcept {
  auto after = std::upper_bound(symbols.begin(), symbols.end(), vaddr,
                                [](std::uint64_t at, const elf_symbol& s) { return at < s.start; });
  if (after == symbols.begin()) return nullptr;
  const elf_symbol& candidate = *std::prev(after);
  if (candidate.size != 0 && vaddr - candidate.start >= candidate.size) return nullptr;
  return &candidate;
}

std::optional<std::uint64_t> elf_symbol_table::function_start(
    std::uint64_t vaddr) const noexcept {
  auto after = std::upper_bound(function_starts.begin(), function_starts.end(), vaddr);
  if (after == function_starts.begin()) return std::nullopt;
  return *std::prev(after);
}

std::optional<elf_symbol_table> read_elf_symbols(const char* path) {
  // Opened by io, which also turns away what is not a regular file (a FIFO would hang libelf).
  io::unique_fd fd = host::open_mapped_file(path, std::nullopt, {});
  if (!fd) return std::nullopt;
  if (elf_version(EV_CURRENT) == EV_NONE) return std::nullopt;
  elf_handle elf{elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr)};
  std::optional<elf_symbol_table> table = read_table(elf.get());
  if (!table) return std::nullopt;
  if (auto id = read_elf_build_id(path)) table->id = *id;
  return table;
}

bool has_symbol_table(int fd) {
  if (elf_version(EV_CURRENT) == EV_NONE) return false;
  elf_handle elf{elf_begin(fd, ELF_C_READ_MMAP, nullptr)};
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) return false;
  for (Elf_Scn* section = elf_nextscn(elf.get(), nullptr); section;
       section = elf_nextscn(elf.get(), section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) && header.sh_type == SHT_SYMTAB && header.sh_size > 0)
      return true;
  }
  return false;
}

std::optional<elf_symbol_table> read_elf_symbols(std::span<const std::byte> image) {
  if (image.empty() || elf_version(EV_CURRENT) == EV_NONE) return std::nullopt;
  // libelf reads a memory image in place and may write to it: a private copy (the vdso is 8 KiB).
  std::vector<char> copy(image.size());
  std::memcpy(copy.data(), image.data(), image.size());
  elf_handle elf{elf_memory(copy.data(), copy.size())};
  std::optional<elf_symbol_table> table = read_table(elf.get());
  if (!table) return std::nullopt;
  if (auto id = elf_image_build_id(image)) table->id = *id;
  return table;
}

}  // namespace arec::symbols
