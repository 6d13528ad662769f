#include "symbols/elf_symbols.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "symbols/vdso_image.hpp"

namespace arec::symbols {
namespace {

const elf_symbol* named(const elf_symbol_table& table, const std::string& name) {
  auto found = std::find_if(table.symbols.begin(), table.symbols.end(),
                            [&](const elf_symbol& s) { return s.name == name; });
  return found == table.symbols.end() ? nullptr : &*found;
}

// The vdso exports each function twice (a weak clock_gettime, a global __vdso_clock_gettime at
// the same address): the one kept is the one perf shows.
TEST(ElfSymbols, TheVdsoIsReadFromMemoryWithPerfsChoiceAmongAliases) {
  std::span<const std::byte> image = own_vdso_image();
  if (image.empty()) GTEST_SKIP() << "no vdso";
  std::optional<elf_symbol_table> table = read_elf_symbols(image);
  ASSERT_TRUE(table);
  EXPECT_EQ(table->id, elf_image_build_id(image));
  const elf_symbol* clock = named(*table, "__vdso_clock_gettime");
  ASSERT_NE(clock, nullptr);
  EXPECT_EQ(table->find(clock->start), clock);
  EXPECT_EQ(named(*table, "clock_gettime"), nullptr) << "the weak alias is dropped";
}

__attribute__((noinline)) int function_with_an_fde(int x) {
  return x * 3 + 1;
}

// Every function has an FDE in .eh_frame: its start is in the .eh_frame_hdr table, and the
// function holding an address inside it starts there.
TEST(ElfSymbols, FdeStartsAreTheFunctionsStarts) {
  std::optional<elf_symbol_table> table = read_elf_symbols("/proc/self/exe");
  ASSERT_TRUE(table);
  ASSERT_FALSE(table->function_starts.empty());
  EXPECT_TRUE(std::is_sorted(table->function_starts.begin(), table->function_starts.end()));
  const elf_symbol* function =
      named(*table, "_ZN4arec7symbols12_GLOBAL__N_120function_with_an_fdeEi");
  ASSERT_NE(function, nullptr);
  ASSERT_GT(function->size, 1u);
  EXPECT_EQ(table->function_start(function->start), function->start);
  EXPECT_EQ(table->function_start(function->start + function->size - 1), function->start);
  EXPECT_GE(function_with_an_fde(1), 0);
}

}  // namespace
}  // namespace arec::symbols
