// jit_elf: a perf map made into the ELF of one mapping of JIT code, which libelf reads back: one
// function symbol per owned run of code in the mapping (the line written last owns reused
// memory), at its run-time address, a PT_LOAD that is the mapping at file offset 0, and a
// build-id that depends only on the pid, the text and the mapping.
#include "symbols/jit_elf.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/temp_dir.hpp"
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

TEST(JitElf, AMapWithoutFunctionsMakesNoFile) {
  EXPECT_FALSE(make_jit_elf(42, "", low));
  EXPECT_FALSE(make_jit_elf(42, "garbage\n1000 0 empty\n", low));
}

}  // namespace
}  // namespace arec::symbols
