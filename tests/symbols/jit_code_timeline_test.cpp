// jit_code_timeline: where a runtime reused an address, a sample is named by the code there at
// its time, and one taken before any code there was loaded by none; a dump timed by the CPU's
// counter has no timeline. The dump's times are CLOCK_MONOTONIC; the recording's clock here
// runs 10000 ns ahead of it (the two pairs), so a record at 1100 is at 11100 for the samples.
#include "symbols/jit_code_timeline.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "support/jitdump_bytes.hpp"
#include "symbols/jitdump_symbols.hpp"

namespace arec::symbols {
namespace {

constexpr perf_data::file_clocks ahead{{1000, 11000}, {2000, 12000}};

jit_code_timeline timeline_of(const std::string& dump,
                              const perf_data::file_clocks& clocks = ahead) {
  std::optional<jit_code_timeline> timeline =
      jitdump_timeline(std::as_bytes(std::span{dump}), clocks);
  EXPECT_TRUE(timeline.has_value());
  return timeline ? std::move(*timeline) : jit_code_timeline{};
}

TEST(JitCodeTimeline, TwoLoadsAtOneAddressNameTheSamplesOfTheirOwnTimes) {
  jit_code_timeline code = timeline_of(
      test::jitdump_header() + test::jitdump_code_load("JS:*first", 16, false, 0x1000, 1100) +
      test::jitdump_code_load("JS:*second", 16, false, 0x1000, 1500));
  EXPECT_EQ(code.name_at(0x1004, 11050), "") << "before any code was there: not the later name";
  EXPECT_EQ(code.name_at(0x1004, 11100), "JS:*first");
  EXPECT_EQ(code.name_at(0x1004, 11499), "JS:*first");
  EXPECT_EQ(code.name_at(0x1004, 11500), "JS:*second");
  EXPECT_EQ(code.name_at(0x1004, 99999), "JS:*second") << "no later code: valid from then on";
  EXPECT_EQ(code.name_at(0x1010, 11600), "") << "past the code's end";
}

TEST(JitCodeTimeline, LinesAreThoseOfTheCodeThereThenAndMoveWithIt) {
  jit_code_timeline code = timeline_of(
      test::jitdump_header() +
      test::jitdump_debug_info(0x1000, {{0x1000, 7, "a.py"}, {0x1008, 8, "a.py"}}, 1100) +
      test::jitdump_code_load("py::a", 16, false, 0x1000, 1100) +
      test::jitdump_debug_info(0x5000, {{0x5000, 9, "elsewhere.py"}}, 1200) +
      test::jitdump_code_load("py::b", 16, false, 0x2000, 1200, 1234, 2) +
      test::jitdump_code_move(0x1000, 0x3000, 16, 1500));
  auto line = [&](std::uint64_t address, std::uint64_t time) {
    std::optional<jit_source_line> found = code.line_at(address, time);
    return found ? std::string(found->file) + ":" + std::to_string(found->line) : "none";
  };
  EXPECT_EQ(line(0x1004, 11200), "a.py:7");
  EXPECT_EQ(line(0x100c, 11200), "a.py:8");
  EXPECT_EQ(line(0x300c, 11600), "a.py:8") << "moved: the same offset into the code";
  EXPECT_EQ(line(0x100c, 11600), "none") << "gone from there";
  EXPECT_EQ(line(0x2004, 11300), "none") << "the record before it was another address's";
  EXPECT_EQ(code.name_at(0x2004, 11300), "py::b");
}

TEST(JitCodeTimeline, ALaterLoadEndsOnlyTheRangeItShares) {
  jit_code_timeline code = timeline_of(
      test::jitdump_header() + test::jitdump_code_load("JS:*wide", 32, false, 0x1000, 1100) +
      test::jitdump_code_load("JS:*inner", 8, false, 0x1008, 1500));
  EXPECT_EQ(code.name_at(0x1000, 11600), "JS:*wide");
  EXPECT_EQ(code.name_at(0x1008, 11400), "JS:*wide");
  EXPECT_EQ(code.name_at(0x1008, 11600), "JS:*inner");
  EXPECT_EQ(code.name_at(0x1018, 11600), "JS:*wide");
}

TEST(JitCodeTimeline, RecordsWrittenOutOfTimeOrderAreTakenInTimeOrder) {
  jit_code_timeline code = timeline_of(
      test::jitdump_header() + test::jitdump_code_load("JS:*second", 16, false, 0x1000, 1500) +
      test::jitdump_code_load("JS:*first", 16, false, 0x1000, 1100));
  EXPECT_EQ(code.name_at(0x1004, 11200), "JS:*first");
  EXPECT_EQ(code.name_at(0x1004, 11600), "JS:*second");
}

TEST(JitCodeTimeline, MovedCodeLeavesItsOldPlaceAndHoldsItsNewOneFromTheMove) {
  jit_code_timeline code =
      timeline_of(test::jitdump_header() +
                  test::jitdump_code_load("JS:*moved", 16, false, 0x1000, 1100, 1234, 5) +
                  test::jitdump_code_load("JS:*resident", 16, false, 0x3000, 1100, 1234, 6) +
                  test::jitdump_code_move(0x1000, 0x3000, 16, 1300, 5));
  EXPECT_EQ(code.name_at(0x1004, 11200), "JS:*moved");
  EXPECT_EQ(code.name_at(0x1004, 11400), "") << "moved away, nothing loaded there since";
  EXPECT_EQ(code.name_at(0x3004, 11200), "JS:*resident");
  EXPECT_EQ(code.name_at(0x3004, 11400), "JS:*moved");
}

TEST(JitCodeTimeline, DumpTimesAreInterpolatedBetweenThePairsAndShiftedByTheNearerOutside) {
  constexpr perf_data::file_clocks drifting{{1000, 11000}, {2000, 12100}};  // 10000, then 10100
  EXPECT_EQ(perf_data::recording_time(drifting, 1500), 11550u);
  EXPECT_EQ(perf_data::recording_time(drifting, 500), 10500u);
  EXPECT_EQ(perf_data::recording_time(drifting, 3000), 13100u);
  EXPECT_EQ(perf_data::recording_time({{1000, 11000}, {}}, 3000), 13000u) << "one pair known";
  EXPECT_EQ(perf_data::recording_time({{}, {2000, 500}}, 1000), std::nullopt)
      << "before the recording clock's start";
  EXPECT_EQ(perf_data::recording_time({}, 1000), std::nullopt);
}

TEST(JitCodeTimeline, ADumpTimedByTheCpusCounterOrWithoutPairsHasNoTimeline) {
  std::string tsc = test::jitdump_header(false, test::jitdump_magic, 1234, 1) +
                    test::jitdump_code_load("JS:*f", 16, false, 0x1000, 1100);
  EXPECT_TRUE(jitdump_times_are_arch(std::as_bytes(std::span{tsc})));
  EXPECT_FALSE(jitdump_timeline(std::as_bytes(std::span{tsc}), ahead).has_value());
  std::string mono =
      test::jitdump_header() + test::jitdump_code_load("JS:*f", 16, false, 0x1000, 1100);
  EXPECT_FALSE(jitdump_times_are_arch(std::as_bytes(std::span{mono})));
  EXPECT_FALSE(jitdump_timeline(std::as_bytes(std::span{mono}), {}).has_value());
}

TEST(JitCodeTimeline, TheOtherByteOrdersFlagIsRead) {
  std::string tsc = test::jitdump_header(true, test::jitdump_magic, 1234, 1);
  EXPECT_TRUE(jitdump_times_are_arch(std::as_bytes(std::span{tsc})));
}

}  // namespace
}  // namespace arec::symbols
