// jit_elf: a perf map made into the ELF of one mapping of JIT code, which libelf reads back: one
// function symbol per owned run of code in the mapping (the line written last owns reused
// memory), at its run-time address, a PT_LOAD that is the mapping at file offset 0, and a
// build-id that depends only on the pid, the text and the mapping.
#include "symbols/jit_elf.hpp"

#include <gtest/gtest.h>

#include <dwarf.h>
#include <gelf.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "support/jitdump_bytes.hpp"
#include "support/temp_dir.hpp"
#include "symbols/cfi_library.hpp"
#include "symbols/elf_build_id.hpp"
#include "symbols/elf_symbols.hpp"

namespace arec::symbols {
namespace {

constexpr jit_code_range mapping{0x7fa3427c0000, 0x7fa3427d0000};
constexpr jit_code_range low{0x1000, 0x2000};

void expect_symbol(const elf_symbol& symbol, const std::string& name, std::uint64_t start,
                   std::uint64_t size) {
  EXPECT_EQ(symbol.name, name);
  EXPECT_EQ(symbol.start, start);
  EXPECT_EQ(symbol.size, size);
}

class jit_elf_file : public ::testing::Test {
 protected:
  // make_jit_elf's image written to a file, as the build-id cache holds it.
  std::string write(const jit_elf& elf) {
    std::string path = dir_.file("elf");
    std::ofstream{path, std::ios::binary}.write(reinterpret_cast<const char*>(elf.image.data()),
                                                static_cast<std::streamsize>(elf.image.size()));
    return path;
  }
  test::temp_dir dir_;
};

TEST_F(jit_elf_file, LibelfReadsEveryFunctionAtItsAddress) {
  auto elf = make_jit_elf(42,
                          "7fa3427c6880 2d8 JS:*jsHotFunction /tmp/hot.js:1:23\n"
                          "not a line\n"
                          "7fa3427c7000 40 Builtin:ArgumentsAdaptorTrampoline\n",
                          mapping);
  ASSERT_TRUE(elf);
  auto table = read_elf_symbols(write(*elf).c_str());
  ASSERT_TRUE(table);
  EXPECT_TRUE(table->full) << "from .symtab";
  ASSERT_EQ(table->symbols.size(), 2u);
  expect_symbol(table->symbols[0], "JS:*jsHotFunction /tmp/hot.js:1:23", 0x7fa3427c6880, 0x2d8);
  expect_symbol(table->symbols[1], "Builtin:ArgumentsAdaptorTrampoline", 0x7fa3427c7000, 0x40);
  ASSERT_EQ(table->segments.size(), 1u);
  // The mapping's file: perf adjusts symbols by sh_addr - sh_offset (the mapping's start), so
  // with pgoff 0 it names ip - start + 0; libdwfl places the segment at start - pgoff.
  EXPECT_EQ(table->segments[0].vaddr, mapping.start);
  EXPECT_EQ(table->segments[0].offset, 0u);
  EXPECT_EQ(table->segments[0].size, mapping.end - mapping.start)
      << "offsets map to addresses over the whole mapping (arec export reads it so)";
  EXPECT_EQ(elf->low, 0x7fa3427c6880u);
  EXPECT_EQ(elf->high, 0x7fa3427c7040u);
}

// A process's map names its code in every mapping (and code outside them, such as V8's builtins
// in node's own text): each mapping's ELF holds its own, cut at its bounds.
TEST_F(jit_elf_file, FunctionsOutsideTheMappingAreLeftOutAndThoseAcrossItsBoundsCut) {
  auto elf = make_jit_elf(42, "1800 100 before\n1f00 200 across_start\n2800 10 inside\n"
                              "2ff0 20 across_end\n3000 10 after\n",
                          {0x2000, 0x3000});
  ASSERT_TRUE(elf);
  auto table = read_elf_symbols(write(*elf).c_str());
  ASSERT_TRUE(table);
  ASSERT_EQ(table->symbols.size(), 3u);
  expect_symbol(table->symbols[0], "across_start", 0x2000, 0x100);
  expect_symbol(table->symbols[1], "inside", 0x2800, 0x10);
  expect_symbol(table->symbols[2], "across_end", 0x2ff0, 0x10);
  EXPECT_FALSE(make_jit_elf(42, "1800 100 before\n", {0x2000, 0x3000})) << "none inside";
  EXPECT_FALSE(make_jit_elf(42, "1800 100 f\n", {0x2000, 0x2000})) << "an empty mapping";
}

TEST_F(jit_elf_file, CodeWrittenLastOwnsReusedMemoryAndNoSymbolsOverlap) {
  auto elf = make_jit_elf(42, "1000 100 old_long\n1040 10 new_short\n", low);
  ASSERT_TRUE(elf);
  auto table = read_elf_symbols(write(*elf).c_str());
  ASSERT_TRUE(table);
  ASSERT_EQ(table->symbols.size(), 3u);
  expect_symbol(table->symbols[0], "old_long", 0x1000, 0x40);
  expect_symbol(table->symbols[1], "new_short", 0x1040, 0x10);
  expect_symbol(table->symbols[2], "old_long", 0x1050, 0xb0);

  auto reused = make_jit_elf(42, "1040 10 old_short\n1000 100 new_long\n", low);
  ASSERT_TRUE(reused);
  auto over = read_elf_symbols(write(*reused).c_str());
  ASSERT_TRUE(over);
  ASSERT_EQ(over->symbols.size(), 1u) << "the old short function was overwritten entirely";
  expect_symbol(over->symbols[0], "new_long", 0x1000, 0x100);
}

TEST_F(jit_elf_file, BuildIdIsTheNotesAndDependsOnlyOnPidTextAndMapping) {
  auto elf = make_jit_elf(42, "1000 10 f\n", low);
  ASSERT_TRUE(elf);
  EXPECT_EQ(elf->id.size, perf_data::build_id::max_size);
  EXPECT_EQ(read_elf_build_id(write(*elf).c_str()), elf->id);
  EXPECT_EQ(make_jit_elf(42, "1000 10 f\n", low)->id, elf->id);
  EXPECT_EQ(make_jit_elf(42, "1000 10 f\n", low)->image, elf->image);
  EXPECT_NE(make_jit_elf(43, "1000 10 f\n", low)->id, elf->id);
  EXPECT_NE(make_jit_elf(42, "1000 10 g\n", low)->id, elf->id);
  EXPECT_NE(make_jit_elf(42, "1000 10 f\n", {0x1000, 0x3000})->id, elf->id);
}

// The CFA rule libdw finds at `address` in `image` (its register and offset), or nullopt.
std::optional<std::pair<Dwarf_Word, Dwarf_Word>> cfa_rule(std::vector<char> image,
                                                          std::uint64_t address) {
  const cfi_functions& dw = libdw_cfi();
  Elf* elf = elf_memory(image.data(), image.size());
  Dwarf_CFI* cfi = elf ? dw.getcfi_elf(elf) : nullptr;
  Dwarf_Frame* frame = nullptr;
  Dwarf_Op* ops = nullptr;
  std::size_t count = 0;
  std::optional<std::pair<Dwarf_Word, Dwarf_Word>> rule;
  if (cfi && dw.cfi_addrframe(cfi, address, &frame) == 0 &&
      dw.frame_cfa(frame, &ops, &count) == 0 && count == 1 && ops[0].atom == DW_OP_bregx)
    rule.emplace(ops[0].number, ops[0].number2);
  std::free(frame);
  if (cfi) dw.cfi_end(cfi);
  if (elf) elf_end(elf);
  return rule;
}

// The address and file offset of section `name` of `image`, or nullopt.
std::optional<std::pair<std::uint64_t, std::uint64_t>> section_place(std::vector<char> image,
                                                                     const std::string& name) {
  Elf* elf = elf_memory(image.data(), image.size());
  std::size_t names = 0;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> place;
  if (!elf || elf_getshdrstrndx(elf, &names) != 0) return place;
  for (Elf_Scn* section = nullptr; (section = elf_nextscn(elf, section));) {
    GElf_Shdr header;
    const char* found = gelf_getshdr(section, &header) ? elf_strptr(elf, names, header.sh_name) : nullptr;
    if (found && name == found) place.emplace(header.sh_addr, header.sh_offset);
  }
  elf_end(elf);
  return place;
}

TEST(JitElf, LibdwReadsTheFunctionsCallFramesInTheMappingOrPastItsEnd) {
  elf_version(EV_CURRENT);
  std::uint64_t start = mapping.start + 0x1000;
  std::string eh_frame = test::jitdump_eh_frame(start, 21);
  std::vector<jitdump_code> code{{100, start, 21, std::nullopt, "f", std::as_bytes(std::span{eh_frame})}};
  std::optional<jit_elf> elf = make_jit_elf(42, "7fa3427c1000 15 f\n", mapping, code);
  ASSERT_TRUE(elf);
  EXPECT_EQ(elf->unwound, 1u);
  std::vector<char> image(reinterpret_cast<const char*>(elf->image.data()),
                          reinterpret_cast<const char*>(elf->image.data()) + elf->image.size());
  constexpr Dwarf_Word rsp = 7;
  EXPECT_EQ(cfa_rule(image, start + 2), std::make_pair(rsp, Dwarf_Word{8}));
  EXPECT_EQ(cfa_rule(image, start + 8), std::make_pair(rsp, Dwarf_Word{16}));
  EXPECT_FALSE(cfa_rule(image, start + 21)) << "past the function";
  // Where perf's libunwind reads them, through the mapping of the file: in the mapping, at the
  // file offset the segment gives their address, the table after the frames.
  auto frames = section_place(image, ".eh_frame");
  auto table = section_place(image, ".eh_frame_hdr");
  ASSERT_TRUE(frames && table);
  EXPECT_GE(frames->first, mapping.start);
  EXPECT_LT(table->first, mapping.end);
  EXPECT_EQ(frames->second, frames->first - mapping.start);
  EXPECT_EQ(table->second, table->first - mapping.start);
  EXPECT_EQ(table->first, frames->first + eh_frame.size());
  EXPECT_TRUE(make_jit_elf(42, "7fa3427c1000 15 f\n", mapping)->unwound == 0);

  // A mapping its functions fill: the frames go past its end, for libdw alone.
  std::optional<jit_elf> full = make_jit_elf(42, "7fa3427c1000 15 f\n", {start, start + 21}, code);
  ASSERT_TRUE(full);
  std::vector<char> full_image(reinterpret_cast<const char*>(full->image.data()),
                               reinterpret_cast<const char*>(full->image.data()) + full->image.size());
  EXPECT_EQ(cfa_rule(full_image, start + 8), std::make_pair(rsp, Dwarf_Word{16}));
  EXPECT_EQ(section_place(full_image, ".eh_frame")->first, start + 24);
  EXPECT_FALSE(section_place(full_image, ".eh_frame_hdr"));
}

TEST(JitElf, AMapWithoutFunctionsMakesNoFile) {
  EXPECT_FALSE(make_jit_elf(42, "", low));
  EXPECT_FALSE(make_jit_elf(42, "garbage\n1000 0 empty\n", low));
}

}  // namespace
}  // namespace arec::symbols
