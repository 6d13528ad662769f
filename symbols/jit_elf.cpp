#include "symbols/jit_elf.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <string>

#include "base/sha1.hpp"
#include "symbols/perf_map_symbols.hpp"

namespace arec::symbols {
namespace {

// One symbol of the file: a run of code that one function of the map owns.
struct function_range {
  std::uint64_t start;
  std::uint64_t end;
  const perf_map_symbol* symbol;
};

// The map's functions cut where a later one overwrote them: between two consecutive start or
// end addresses the owner cannot change, so it is asked once per such interval.
std::vector<function_range> owned_ranges(const perf_map_table& symbols) {
  std::vector<std::uint64_t> bounds;
  bounds.reserve(2 * symbols.size());
  for (const perf_map_symbol& symbol : symbols.symbols()) {
    bounds.push_back(symbol.start);
    bounds.push_back(symbol.end);
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  std::vector<function_range> ranges;
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
    const perf_map_symbol* owner = symbols.at(bounds[i]);
    if (!owner) continue;
    if (!ranges.empty() && ranges.back().symbol == owner && ranges.back().end == bounds[i])
      ranges.back().end = bounds[i + 1];
    else
      ranges.push_back({bounds[i], bounds[i + 1], owner});
  }
  return ranges;
}

// Deterministic, so converting a recording twice stores one file, and a digest: a process
// writes its own perf map, and must not be able to give it another map's build-id.
perf_data::build_id map_build_id(pid_t pid, std::string_view text, const jit_code_range& within) {
  base::sha1 hash;
  std::int64_t wide_pid = pid;
  hash.add(std::as_bytes(std::span{&wide_pid, 1}));
  hash.add(std::as_bytes(std::span{text.data(), text.size()}));
  std::uint64_t bounds[] = {within.start, within.end};
  hash.add(std::as_bytes(std::span{bounds}));
  base::sha1::digest digest = hash.finish();
  return perf_data::build_id::from(std::as_bytes(std::span{digest}));
}

std::uint16_t host_machine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#else
  return EM_NONE;
#endif
}

// Appends `value`'s bytes to `out` and returns where they start.
template <typename T>
std::size_t append(std::vector<std::byte>& out, const T& value) {
  std::size_t at = out.size();
  out.resize(at + sizeof value);
  std::memcpy(out.data() + at, &value, sizeof value);
  return at;
}

std::size_t append_bytes(std::vector<std::byte>& out, std::string_view bytes) {
  std::size_t at = out.size();
  out.resize(at + bytes.size());
  std::memcpy(out.data() + at, bytes.data(), bytes.size());
  return at;
}

void align8(std::vector<std::byte>& out) {
  out.resize((out.size() + 7) & ~std::size_t{7});
}

// Section indexes and their names in .shstrtab.
enum section : std::uint16_t {
  null_index,
  text_index,
  note_index,
  symtab_index,
  strtab_index,
  shstrtab_index,
  section_count
};
constexpr std::string_view section_names{
    "\0.text\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab\0", 52};
constexpr Elf64_Word name_of[section_count] = {0, 1, 7, 26, 34, 42};

Elf64_Ehdr file_header() {
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = host_machine();
  header.e_version = EV_CURRENT;
  header.e_phoff = sizeof(Elf64_Ehdr);
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = 1;
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = section_count;
  header.e_shstrndx = shstrtab_index;
  return header;
}

Elf64_Shdr section_header(section which, Elf64_Word type, std::uint64_t offset,
                          std::uint64_t size) {
  Elf64_Shdr header{};
  header.sh_name = name_of[which];
  header.sh_type = type;
  header.sh_offset = offset;
  header.sh_size = size;
  header.sh_addralign = 1;
  return header;
}

}  // namespace

std::optional<jit_elf> make_jit_elf(pid_t pid, std::string_view text, jit_code_range within) {
  if (within.start >= within.end) return std::nullopt;
  perf_map_table symbols(text);
  std::vector<function_range> ranges = owned_ranges(symbols);
  std::erase_if(ranges, [&](function_range& range) {
    range.start = std::max(range.start, within.start);
    range.end = std::min(range.end, within.end);
    return range.start >= range.end;
  });
  if (ranges.empty()) return std::nullopt;
  jit_elf elf{map_build_id(pid, text, within), {}, ranges.front().start, ranges.back().end,
              symbols.left_out()};
  std::vector<std::byte>& out = elf.image;
  std::size_t header_at = append(out, file_header());

  Elf64_Phdr load{};
  load.p_type = PT_LOAD;
  load.p_flags = PF_R | PF_X;
  // The mapping's file, as mapped at pgoff 0: offset 0 is the mapping's start.
  load.p_offset = 0;
  load.p_vaddr = load.p_paddr = within.start;
  // p_filesz too, though the file holds no code: readers that map a mapping's file offset to an
  // address through the segment's file range (arec export) then find the functions as perf does.
  load.p_filesz = load.p_memsz = within.end - within.start;
  load.p_align = 1;
  append(out, load);

  std::size_t note_at = append(out, Elf64_Nhdr{4, elf.id.size, NT_GNU_BUILD_ID});
  append_bytes(out, {"GNU", 4});
  append_bytes(out, {reinterpret_cast<const char*>(elf.id.bytes.data()), elf.id.size});
  std::size_t note_size = out.size() - note_at;
  align8(out);

  std::string names(1, '\0');
  std::size_t symtab_at = append(out, Elf64_Sym{});
  for (const function_range& range : ranges) {
    Elf64_Sym symbol{};
    symbol.st_name = static_cast<Elf64_Word>(names.size());
    symbol.st_info = ELF64_ST_INFO(STB_LOCAL, STT_FUNC);
    symbol.st_shndx = text_index;
    symbol.st_value = range.start;
    symbol.st_size = range.end - range.start;
    append(out, symbol);
    names.append(symbols.name(*range.symbol)).push_back('\0');
  }
  std::size_t symtab_size = out.size() - symtab_at;
  std::size_t strtab_at = append_bytes(out, names);
  std::size_t shstrtab_at = append_bytes(out, section_names);
  align8(out);

  std::size_t headers_at = out.size();
  append(out, Elf64_Shdr{});
  // NOBITS: the code is not in the file; its offset and address are the segment's.
  Elf64_Shdr code = section_header(text_index, SHT_NOBITS, 0, within.end - within.start);
  code.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
  code.sh_addr = within.start;
  append(out, code);
  Elf64_Shdr build_id_note = section_header(note_index, SHT_NOTE, note_at, note_size);
  build_id_note.sh_addralign = 4;
  append(out, build_id_note);
  Elf64_Shdr table = section_header(symtab_index, SHT_SYMTAB, symtab_at, symtab_size);
  table.sh_link = strtab_index;
  table.sh_info = static_cast<Elf64_Word>(ranges.size() + 1);  // all local: none global
  table.sh_entsize = sizeof(Elf64_Sym);
  table.sh_addralign = 8;
  append(out, table);
  append(out, section_header(strtab_index, SHT_STRTAB, strtab_at, names.size()));
  append(out, section_header(shstrtab_index, SHT_STRTAB, shstrtab_at, section_names.size()));

  Elf64_Ehdr header = file_header();
  header.e_shoff = headers_at;
  std::memcpy(out.data() + header_at, &header, sizeof header);
  return elf;
}

}  // namespace arec::symbols
