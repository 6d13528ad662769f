// recording_info: the wall-clock window of the samples, also from corrupt sample times, which
// must give a window without signed overflow (UBSan aborts on one in the ASan build).
#include "export/recording_info.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>


namespace arec::exporting {
namespace {

constexpr std::uint64_t top_bit = std::uint64_t{1} << 63;

TEST(RecordingInfo, WallWindowFromTheClockOffset) {
  EXPECT_EQ(sample_wall_window(10, 20, 5, 1000), (std::pair<std::int64_t, std::int64_t>{15, 25}));
}

TEST(RecordingInfo, WallWindowEndsAtTheFileWithoutAnOffset) {
  EXPECT_EQ(sample_wall_window(10, 20, std::nullopt, 1000),
            (std::pair<std::int64_t, std::int64_t>{990, 1000}));
}

TEST(RecordingInfo, WallWindowOfCorruptTimesDoesNotOverflow) {
  // An offset that would carry the time past 2^63 - 1: the file's time places the window.
  EXPECT_EQ(sample_wall_window(top_bit - 10, top_bit - 5, std::int64_t{1} << 62, 1000),
            (std::pair<std::int64_t, std::int64_t>{995, 1000}));
  // A span of 2^63: it starts at the epoch.
  EXPECT_EQ(sample_wall_window(1, top_bit + 1, std::nullopt, 1000),
            (std::pair<std::int64_t, std::int64_t>{0, 1000}));
  EXPECT_EQ(sample_wall_window(1, std::numeric_limits<std::uint64_t>::max(), -5, 1000),
            (std::pair<std::int64_t, std::int64_t>{0, 1000}));
}

}  // namespace
}  // namespace arec::exporting
