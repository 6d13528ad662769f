#include "symbols/elf_symbols.hpp"

#include <gelf.h>

#include <algorithm>
#include <memory>

#include "host/mapped_file.hpp"
#include "io/unique_fd.hpp"
#include "symbols/elf_build_id.hpp"

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
      out.push_back({symbol.st_value, symbol.st_size, name});
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

std::optional<elf_symbol_table> read_elf_symbols(const char* path) {
  // Opened by io, which also turns away what is not a regular file (a FIFO would hang libelf).
  io::unique_fd fd = host::open_mapped_file(path, std::nullopt, {});
  if (!fd) return std::nullopt;
  if (elf_version(EV_CURRENT) == EV_NONE) return std::nullopt;
  elf_handle elf{elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr)};
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) return std::nullopt;
  elf_symbol_table table;
  table.full = read_section_symbols(elf.get(), SHT_SYMTAB, table.symbols);
  if (!table.full) read_section_symbols(elf.get(), SHT_DYNSYM, table.symbols);
  // Aliases share an address: keep one name per address, the first in table order.
  std::stable_sort(table.symbols.begin(), table.symbols.end(),
                   [](const elf_symbol& a, const elf_symbol& b) { return a.start < b.start; });
  auto duplicate =
      std::unique(table.symbols.begin(), table.symbols.end(),
                  [](const elf_symbol& a, const elf_symbol& b) { return a.start == b.start; });
  table.symbols.erase(duplicate, table.symbols.end());
  read_segments(elf.get(), table.segments);
  if (auto id = read_elf_build_id(path)) table.id = *id;
  return table;
}

}  // namespace arec::symbols
