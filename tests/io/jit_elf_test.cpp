// jit_elf: a perf map made into an ELF that libelf reads back: one function symbol per owned
// run of code (the line written last owns reused memory), at its run-time address, a PT_LOAD
// whose offset equals its address, and a build-id that depends only on the pid and the text.
#include "io/jit_elf.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "io/elf_build_id.hpp"
#include "io/elf_symbols.hpp"
#include "support/temp_dir.hpp"

namespace arec::io {
namespace {

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
  EXPECT_EQ(table->symbols[0].name, "JS:*jsHotFunction /tmp/hot.js:1:23");
  EXPECT_EQ(table->symbols[0].start, 0x7fa3427c6880u);
  EXPECT_EQ(table->symbols[0].size, 0x2d8u);
  EXPECT_EQ(table->symbols[1].name, "Builtin:ArgumentsAdaptorTrampoline");
  EXPECT_EQ(table->symbols[1].start, 0x7fa3427c7000u);
  ASSERT_EQ(table->segments.size(), 1u);
  // perf may adjust symbols by p_vaddr - p_offset: zero, so it names the same address either way.
  EXPECT_EQ(table->segments[0].vaddr, 0x7fa3427c6880u);
  EXPECT_EQ(table->segments[0].offset, table->segments[0].vaddr);
  EXPECT_EQ(elf->low, 0x7fa3427c6880u);
  EXPECT_EQ(elf->high, 0x7fa3427c7040u);
}

TEST_F(jit_elf_file, CodeWrittenLastOwnsReusedMemoryAndNoSymbolsOverlap) {
  auto elf = make_jit_elf(42, "1000 100 old_long\n1040 10 new_short\n");
  ASSERT_TRUE(elf);
  auto table = read_elf_symbols(write(*elf).c_str());
  ASSERT_TRUE(table);
  ASSERT_EQ(table->symbols.size(), 3u);
  EXPECT_EQ(table->symbols[0].name, "old_long");
  EXPECT_EQ(table->symbols[0].start, 0x1000u);
  EXPECT_EQ(table->symbols[0].size, 0x40u);
  EXPECT_EQ(table->symbols[1].name, "new_short");
  EXPECT_EQ(table->symbols[1].start, 0x1040u);
  EXPECT_EQ(table->symbols[1].size, 0x10u);
  EXPECT_EQ(table->symbols[2].name, "old_long");
  EXPECT_EQ(table->symbols[2].start, 0x1050u);
  EXPECT_EQ(table->symbols[2].size, 0xb0u);

  auto reused = make_jit_elf(42, "1040 10 old_short\n1000 100 new_long\n");
  ASSERT_TRUE(reused);
  auto over = read_elf_symbols(write(*reused).c_str());
  ASSERT_TRUE(over);
  ASSERT_EQ(over->symbols.size(), 1u) << "the old short function was overwritten entirely";
  EXPECT_EQ(over->symbols[0].name, "new_long");
  EXPECT_EQ(over->symbols[0].size, 0x100u);
}

TEST_F(jit_elf_file, BuildIdIsTheNotesAndDependsOnlyOnPidAndText) {
  auto elf = make_jit_elf(42, "1000 10 f\n");
  ASSERT_TRUE(elf);
  EXPECT_EQ(elf->id.size, build_id::max_size);
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
}  // namespace arec::io
