// jit_generations: a dump's code splits into generations where the runtime loads code over a
// range it loaded code at before; each generation's map holds the code loaded up to its end, so
// the code written last there names an address within the generation. The dump's times are
// CLOCK_MONOTONIC; the recording's clock runs 10000 ns ahead of it (the two pairs).
#include "symbols/jit_generations.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>

#include "support/jitdump_bytes.hpp"
#include "symbols/perf_map_symbols.hpp"

namespace arec::symbols {
namespace {

constexpr perf_data::file_clocks ahead{{1000, 11000}, {2000, 12000}};

std::span<const std::byte> bytes(const std::string& dump) {
  return std::as_bytes(std::span{dump});
}

// The name generation `index`'s map gives `address`.
std::string named(const jit_generations& generations, std::size_t index, std::uint64_t address) {
  std::string text = generations.perf_map(index);
  perf_map_table table(text);
  const perf_map_symbol* symbol = table.at(address);
  return symbol ? std::string{table.name(*symbol)} : "";
}

TEST(JitGenerations, CodeThatReusesNoRangeIsOneGeneration) {
  std::string dump = test::jitdump_header() +
                     test::jitdump_code_load("JS:*a", 16, false, 0x1000, 1100) +
                     test::jitdump_code_load("JS:*b", 16, false, 0x1010, 1200) +
                     test::jitdump_code_load("JS:*c", 16, false, 0x2000, 1300);
  jit_generations generations(bytes(dump), ahead);
  ASSERT_EQ(generations.size(), 1u);
  EXPECT_EQ(generations.from(0), 0u);
  EXPECT_EQ(named(generations, 0, 0x1004), "JS:*a");
  EXPECT_EQ(named(generations, 0, 0x1014), "JS:*b") << "adjacent code is no reuse";
  EXPECT_EQ(named(generations, 0, 0x2004), "JS:*c");
}

TEST(JitGenerations, CodeLoadedOverEarlierCodeBeginsAGenerationAtItsTime) {
  std::string dump = test::jitdump_header() +
                     test::jitdump_code_load("JS:*first", 16, false, 0x1000, 1100) +
                     test::jitdump_code_load("JS:*other", 16, false, 0x3000, 1200) +
                     test::jitdump_code_load("JS:*second", 8, false, 0x1008, 1500) +
                     test::jitdump_code_load("JS:*later", 16, false, 0x4000, 1600);
  jit_generations generations(bytes(dump), ahead);
  ASSERT_EQ(generations.size(), 2u);
  EXPECT_EQ(generations.from(1), 11500u) << "the reusing load's time, on the recording's clock";
  EXPECT_EQ(named(generations, 0, 0x1008), "JS:*first") << "before the reuse";
  EXPECT_EQ(named(generations, 0, 0x4004), "") << "loaded after the first generation";
  EXPECT_EQ(named(generations, 1, 0x1008), "JS:*second");
  EXPECT_EQ(named(generations, 1, 0x1004), "JS:*first") << "the part it did not overwrite";
  EXPECT_EQ(named(generations, 1, 0x3004), "JS:*other") << "earlier code lives on";
  EXPECT_EQ(named(generations, 1, 0x4004), "JS:*later");
}

TEST(JitGenerations, TheGenerationAtATimeIsTheLastToBeginByThen) {
  std::string dump = test::jitdump_header() +
                     test::jitdump_code_load("JS:*first", 16, false, 0x1000, 1100) +
                     test::jitdump_code_load("JS:*second", 16, false, 0x1000, 1500) +
                     test::jitdump_code_load("JS:*third", 16, false, 0x1000, 1700);
  jit_generations generations(bytes(dump), ahead);
  ASSERT_EQ(generations.size(), 3u);
  EXPECT_EQ(generations.at(0), 0u);
  EXPECT_EQ(generations.at(11499), 0u);
  EXPECT_EQ(generations.at(11500), 1u) << "a generation holds from its first moment";
  EXPECT_EQ(generations.at(11699), 1u);
  EXPECT_EQ(generations.at(~std::uint64_t{0}), 2u);
}

TEST(JitGenerations, CodeThatTouchesOneRangeAndOverlapsTheNextReusesMemory) {
  // [0x1010, 0x1028) starts where the first ends (no reuse there) and runs into the second.
  std::string dump = test::jitdump_header() +
                     test::jitdump_code_load("JS:*first", 16, false, 0x1000, 1100) +
                     test::jitdump_code_load("JS:*second", 16, false, 0x1020, 1200) +
                     test::jitdump_code_load("JS:*third", 24, false, 0x1010, 1500);
  jit_generations generations(bytes(dump), ahead);
  ASSERT_EQ(generations.size(), 2u);
  EXPECT_EQ(generations.from(1), 11500u);
  EXPECT_EQ(named(generations, 0, 0x1024), "JS:*second");
  EXPECT_EQ(named(generations, 1, 0x1024), "JS:*third");
}

TEST(JitGenerations, RecordsAreTakenInTimeOrder) {
  std::string dump = test::jitdump_header() +
                     test::jitdump_code_load("JS:*second", 16, false, 0x1000, 1500) +
                     test::jitdump_code_load("JS:*first", 16, false, 0x1000, 1100);
  jit_generations generations(bytes(dump), ahead);
  ASSERT_EQ(generations.size(), 2u);
  EXPECT_EQ(named(generations, 0, 0x1004), "JS:*first");
  EXPECT_EQ(named(generations, 1, 0x1004), "JS:*second");
}

TEST(JitGenerations, CodeMovedOntoEarlierCodeBeginsAGeneration) {
  std::string dump = test::jitdump_header() +
                     test::jitdump_code_load("JS:*stays", 16, false, 0x1000, 1100, 1234, 1) +
                     test::jitdump_code_load("JS:*moves", 16, false, 0x2000, 1200, 1234, 2) +
                     test::jitdump_code_move(0x2000, 0x1000, 16, 1400, 2);
  jit_generations generations(bytes(dump), ahead);
  ASSERT_EQ(generations.size(), 2u);
  EXPECT_EQ(generations.from(1), 11400u);
  EXPECT_EQ(named(generations, 0, 0x1004), "JS:*stays");
  EXPECT_EQ(named(generations, 1, 0x1004), "JS:*moves");
}

TEST(JitGenerations, ReusesPastTheLimitStayInTheLastGeneration) {
  std::string dump = test::jitdump_header();
  for (std::uint64_t i = 0; i < 6; ++i)
    dump += test::jitdump_code_load("JS:*v" + std::to_string(i), 16, false, 0x1000, 1100 + i);
  jit_generations generations(bytes(dump), ahead, 3);
  ASSERT_EQ(generations.size(), 3u);
  EXPECT_EQ(generations.reuses_merged(), 3u);
  EXPECT_EQ(named(generations, 0, 0x1004), "JS:*v0");
  EXPECT_EQ(named(generations, 1, 0x1004), "JS:*v1");
  EXPECT_EQ(named(generations, 2, 0x1004), "JS:*v5") << "the code written last";
}

TEST(JitGenerations, ADumpTimedByTheCpusCounterIsOneGenerationNamedByTheCodeWrittenLast) {
  std::string dump = test::jitdump_header(false, test::jitdump_magic, 1234, 1) +
                     test::jitdump_code_load("JS:*first", 16, false, 0x1000, 1100) +
                     test::jitdump_code_load("JS:*second", 16, false, 0x1000, 1500);
  jit_generations generations(bytes(dump), ahead);
  EXPECT_FALSE(generations.placed());
  ASSERT_EQ(generations.size(), 1u);
  EXPECT_EQ(named(generations, 0, 0x1004), "JS:*second");
}

TEST(JitGenerations, CodeWithoutARangeNamesNothingAndReusesNothing) {
  std::string dump = test::jitdump_header() +
                     test::jitdump_code_load("JS:*a", 16, false, 0x1000, 1100) +
                     test::jitdump_code_load("JS:*empty", 0, false, 0x1000, 1200) +
                     test::jitdump_code_load("JS:*wraps", 16, false, ~std::uint64_t{0} - 4, 1300);
  jit_generations generations(bytes(dump), ahead);
  EXPECT_EQ(generations.size(), 1u);
  EXPECT_EQ(named(generations, 0, 0x1004), "JS:*a");
}

}  // namespace
}  // namespace arec::symbols
