// jit_elf: a perf map made into an ELF that libelf reads back: one function symbol per owned
// run of code (the line written last owns reused memory), at its run-time address, a PT_LOAD
// whose offset equals its address, and a build-id that depends only on the pid and the text.
#include "symbols/jit_elf.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/temp_dir.hpp"
#include "symbols/elf_build_id.hpp"
#include "symbols/elf_symbols.hpp"

namespace arec::symbols {
namespace {

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
                          "7fa3427c7000 40 Builtin:ArgumentsAdaptorTrampoline\n");
  ASSERT_TRUE(elf);
  auto table = read_elf_symbols(write(*elf).c_str());
  ASSERT_TRUE(table);
  EXPECT_TRUE(table->full) << "from .symtab";
  ASSERT_EQ(table->symbols.size(), 2u);
  expect_symbol(table->symbols[0], "JS:*jsHotFunction /tmp/hot.js:1:23", 0x7fa3427c6880, 0x2d8);
  expect_symbol(table->symbols[1], "Builtin:ArgumentsAdaptorTrampoline", 0x7fa3427c7000, 0x40);
  ASSERT_EQ(table->segments.size(), 1u);
  // perf may adjust symbols by p_vaddr - p_offset: zero, so it names the same address either way.
  EXPECT_EQ(table->segments[0].vaddr, 0x7fa3427c6880u);
  EXPECT_EQ(table->segments[0].offset, table->segments[0].vaddr);
  EXPECT_EQ(table->segments[0].size, 0x7fa3427c7040u - 0x7fa3427c6880u)
      << "offsets map to addresses over the whole range (arec export reads it so)";
  EXPECT_EQ(elf->low, 0x7fa3427c6880u);
  EXPECT_EQ(elf->high, 0x7fa3427c7040u);
}

TEST_F(jit_elf_file, CodeWrittenLastOwnsReusedMemoryAndNoSymbolsOverlap) {
  auto elf = make_jit_elf(42, "1000 100 old_long\n1040 10 new_short\n");
  ASSERT_TRUE(elf);
  auto table = read_elf_symbols(write(*elf).c_str());
  ASSERT_TRUE(table);
  ASSERT_EQ(table->symbols.size(), 3u);
  expect_symbol(table->symbols[0], "old_long", 0x1000, 0x40);
  expect_symbol(table->symbols[1], "new_short", 0x1040, 0x10);
  expect_symbol(table->symbols[2], "old_long", 0x1050, 0xb0);

  auto reused = make_jit_elf(42, "1040 10 old_short\n1000 100 new_long\n");
  ASSERT_TRUE(reused);
  auto over = read_elf_symbols(write(*reused).c_str());
  ASSERT_TRUE(over);
  ASSERT_EQ(over->symbols.size(), 1u) << "the old short function was overwritten entirely";
  expect_symbol(over->symbols[0], "new_long", 0x1000, 0x100);
}

TEST_F(jit_elf_file, BuildIdIsTheNotesAndDependsOnlyOnPidAndText) {
  auto elf = make_jit_elf(42, "1000 10 f\n");
  ASSERT_TRUE(elf);
  EXPECT_EQ(elf->id.size, perf_data::build_id::max_size);
  EXPECT_EQ(read_elf_build_id(write(*elf).c_str()), elf->id);
  EXPECT_EQ(make_jit_elf(42, "1000 10 f\n")->id, elf->id);
  EXPECT_EQ(make_jit_elf(42, "1000 10 f\n")->image, elf->image);
  EXPECT_NE(make_jit_elf(43, "1000 10 f\n")->id, elf->id);
  EXPECT_NE(make_jit_elf(42, "1000 10 g\n")->id, elf->id);
}

TEST(JitElf, AMapWithoutFunctionsMakesNoFile) {
  EXPECT_FALSE(make_jit_elf(42, ""));
  EXPECT_FALSE(make_jit_elf(42, "garbage\n1000 0 empty\n"));
}

}  // namespace
}  // namespace arec::symbols
