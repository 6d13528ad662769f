// record_cursor: the one bounds-checked reader of a record's fields (side band, the converter's
// record check, export's sample decoder).
#include "perf_data/record_cursor.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <limits>

namespace arec::perf_data {
namespace {

// A record of `words` u64 words after its 8-byte header, 8-aligned.
struct test_record {
  alignas(8) std::array<std::byte, 8 + 8 * 4> bytes{};
  explicit test_record(std::array<std::uint64_t, 4> words) {
    std::memcpy(bytes.data() + 8, words.data(), sizeof words);
  }
  std::span<const std::byte> span(std::size_t size = 40) const { return {bytes.data(), size}; }
};

TEST(RecordCursor, ReadsFieldsInOrderFromTheBody) {
  test_record record{{0x0000000700000005, 42, 43, 44}};
  record_cursor in{record.span()};
  EXPECT_EQ(in.get<std::int32_t>(), 5);
  EXPECT_EQ(in.get<std::int32_t>(), 7);
  EXPECT_EQ(in.word(), 42u);
  in.skip(8);
  EXPECT_EQ(in.take(8).size(), 8u);
  EXPECT_TRUE(in.ok());
  EXPECT_FALSE(in.fits(1));
}

TEST(RecordCursor, AReadPastTheEndYieldsZeroAndStaysBad) {
  test_record record{{1, 2, 3, 4}};
  record_cursor in{record.span(20)};  // 12 bytes of body: one word and half of the next
  EXPECT_EQ(in.word(), 1u);
  EXPECT_EQ(in.word(), 0u);
  EXPECT_FALSE(in.ok());
  EXPECT_EQ(in.get<std::uint32_t>(), 0u) << "a smaller read after a failure fails too";
  EXPECT_TRUE(in.take(1).empty());
  EXPECT_FALSE(in.ok());
}

TEST(RecordCursor, RefusesItemCountsWhoseSizeOverflows) {
  test_record record{{1, 2, 3, 4}};
  record_cursor in{record.span()};
  in.skip_items(std::numeric_limits<std::uint64_t>::max() / 8 + 2, 8);
  EXPECT_FALSE(in.ok());
  record_cursor fitting{record.span()};
  fitting.skip_items(2, 16);
  EXPECT_TRUE(fitting.ok());
  EXPECT_FALSE(fitting.fits(1));
}

TEST(RecordCursor, WordsAreInPlaceWhenAlignedAndCopiedWhenNot) {
  test_record record{{10, 11, 12, 13}};
  std::vector<std::uint64_t> spare;
  record_cursor aligned{record.span()};
  auto words = aligned.words(3, spare);
  ASSERT_EQ(words.size(), 3u);
  EXPECT_EQ(static_cast<const void*>(words.data()), record.bytes.data() + 8);
  EXPECT_EQ(words[2], 12u);
  record_cursor unaligned{record.span(), 12};
  EXPECT_EQ(unaligned.words(2, spare).size(), 2u);
  EXPECT_EQ(spare.size(), 2u);
  EXPECT_TRUE(unaligned.ok());
  EXPECT_TRUE(unaligned.words(3, spare).empty());
  EXPECT_FALSE(unaligned.ok());
}

TEST(RecordCursor, StringStopsAtItsNulOrTheRecordsEnd) {
  test_record record{{0, 0, 0, 0}};
  std::memcpy(record.bytes.data() + 8, "comm\0xx", 7);
  EXPECT_EQ(record_cursor{record.span()}.string(), "comm");
  std::memcpy(record.bytes.data() + 8, "abcdefgh", 8);
  EXPECT_EQ(record_cursor{record.span(16)}.string(), "abcdefgh");
}

TEST(RecordCursor, AnOffsetPastTheRecordIsBad) {
  test_record record{{1, 2, 3, 4}};
  record_cursor in{record.span(16), 24};
  EXPECT_FALSE(in.ok());
  EXPECT_EQ(in.word(), 0u);
  EXPECT_EQ(in.string(), "");
}

}  // namespace
}  // namespace arec::perf_data
