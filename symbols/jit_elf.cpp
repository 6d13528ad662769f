#include "symbols/jit_elf.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <string>

#include "base/sha1.hpp"
#include "symbols/jit_eh_frame.hpp"
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
perf_data::build_id map_build_id(pid_t pid, std::string_view text, const jit_code_range& within,
                                 std::span<const std::byte> eh_frame) {
  base::sha1 hash;
  std::int64_t wide_pid = pid;
  hash.add(std::as_bytes(std::span{&wide_pid, 1}));
  hash.add(std::as_bytes(std::span{text.data(), text.size()}));
  std::uint64_t bounds[] = {within.start, within.end};
  hash.add(std::as_bytes(std::span{bounds}));
  hash.add(eh_frame);
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
  // Last, those a file without call frame information leaves out: the header before the
  // frames, as libdw takes a table only from an .eh_frame_hdr it met first.
  eh_frame_hdr_index,
  eh_frame_index,
  section_count
};
constexpr std::string_view section_names{
    "\0.text\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab\0.eh_frame_hdr\0.eh_frame\0",
    76};
constexpr Elf64_Word name_of[section_count] = {0, 1, 7, 26, 34, 42, 52, 66};

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

// The file's headers come first (ELF header, program header): call frame information placed in
// the mapping starts past them.
constexpr std::uint64_t header_room = 128;
// Farther in, the zeros before it would make the file as large as the mapping.
constexpr std::uint64_t max_frames_offset = 1 << 20;

std::uint64_t round_up8(std::uint64_t value) { return (value + 7) & ~std::uint64_t{7}; }

// The first address of the mapping, past the headers' room, from which `size` bytes hold no
// function of the ELF; nullopt when there is none near enough to its start.
std::optional<std::uint64_t> free_stretch(const std::vector<function_range>& ranges,
                                          jit_code_range within, std::uint64_t size) {
  std::uint64_t at = within.start + header_room;
  for (const function_range& range : ranges) {
    if (range.start >= at && range.start - at >= size) break;
    at = std::max(at, round_up8(range.end));
  }
  if (at - within.start > max_frames_offset || at > within.end || within.end - at < size)
    return std::nullopt;
  return at;
}

// The functions' call frame information and where it goes: in the mapping, where no function of
// the ELF is, with an .eh_frame_hdr (perf's libunwind reads both through the recording's
// mapping of the file); or, without room there, past the mapping's end, for libdw alone (perf,
// reading a table there through whatever else the process maps, could find another file's
// bytes).
struct call_frames {
  jit_eh_frame frames;
  std::vector<std::byte> header;  // empty outside the mapping
  std::uint64_t at = 0;           // the frames' address; the header's follows them
};

call_frames placed_call_frames(std::span<const jitdump_code> functions,
                               const std::vector<function_range>& ranges, jit_code_range within) {
  call_frames placed;
  // Moving the entries changes their pointers, not their size.
  placed.frames = merge_jit_eh_frames(functions, within.start, within.end, within.start);
  if (placed.frames.bytes.empty()) return placed;
  std::uint64_t size = placed.frames.bytes.size() + 12 + 8 * placed.frames.fdes.size();
  if (std::optional<std::uint64_t> at = free_stretch(ranges, within, size)) {
    placed.at = *at;
    placed.frames = merge_jit_eh_frames(functions, within.start, within.end, placed.at);
    placed.header = jit_eh_frame_header(placed.frames, placed.at,
                                        placed.at + placed.frames.bytes.size());
    if (!placed.header.empty()) return placed;
  }
  placed.at = within.end > ~std::uint64_t{7} ? 0 : round_up8(within.end);
  placed.frames = placed.at == 0 ? jit_eh_frame{}
                                 : merge_jit_eh_frames(functions, within.start, within.end,
                                                       placed.at);
  return placed;
}

// The section headers of `placed`, its frames at file offset `offset`.
void append_call_frame_sections(std::vector<std::byte>& out, const call_frames& placed,
                                std::uint64_t offset) {
  std::uint64_t frames_size = placed.frames.bytes.size();
  if (!placed.header.empty()) {
    Elf64_Shdr table = section_header(eh_frame_hdr_index, SHT_PROGBITS, offset + frames_size,
                                      placed.header.size());
    table.sh_flags = SHF_ALLOC;
    table.sh_addr = placed.at + frames_size;
    table.sh_addralign = 4;
    append(out, table);
  }
  Elf64_Shdr frames = section_header(eh_frame_index, SHT_PROGBITS, offset, frames_size);
  frames.sh_flags = SHF_ALLOC;
  frames.sh_addr = placed.at;
  frames.sh_addralign = 4;
  append(out, frames);
}

}  // namespace

std::optional<jit_elf> make_jit_elf(pid_t pid, std::string_view text, jit_code_range within,
                                    std::span<const jitdump_code> functions) {
  if (within.start >= within.end) return std::nullopt;
  perf_map_table symbols(text);
  std::vector<function_range> ranges = owned_ranges(symbols);
  std::erase_if(ranges, [&](function_range& range) {
    range.start = std::max(range.start, within.start);
    range.end = std::min(range.end, within.end);
    return range.start >= range.end;
  });
  if (ranges.empty()) return std::nullopt;
  call_frames placed = placed_call_frames(functions, ranges, within);
  const std::vector<std::byte>& frames = placed.frames.bytes;
  jit_elf elf{map_build_id(pid, text, within, frames),
              {},
              ranges.front().start,
              ranges.back().end,
              symbols.left_out(),
              placed.frames.functions,
              placed.frames.refused};
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
  // Frames in the mapping are where the segment puts their addresses: file offset = address -
  // start.
  std::uint64_t frames_offset = 0;
  if (!placed.header.empty()) {
    frames_offset = placed.at - within.start;
    out.resize(frames_offset);
    out.insert(out.end(), frames.begin(), frames.end());
    out.insert(out.end(), placed.header.begin(), placed.header.end());
    align8(out);
  }

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
  if (!frames.empty() && placed.header.empty()) {
    frames_offset = out.size();
    out.insert(out.end(), frames.begin(), frames.end());
    align8(out);
  }

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
  if (!frames.empty()) append_call_frame_sections(out, placed, frames_offset);

  Elf64_Ehdr header = file_header();
  header.e_shoff = headers_at;
  header.e_shnum = static_cast<Elf64_Half>((out.size() - headers_at) / sizeof(Elf64_Shdr));
  std::memcpy(out.data() + header_at, &header, sizeof header);
  return elf;
}

}  // namespace arec::symbols
