// Specification of the COMPRESSED record stage: compressor output is a valid perf record stream
// whose payloads form one zstd frame, decodable with plain zstd and with decompressor.
#include "perf_data/compressor.hpp"

#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "compressed_stream.hpp"
#include "perf_data/decompressor.hpp"
#include "support/allocation_counter.hpp"

namespace {

using arec::perf_data::compressor;
using arec::perf_data::decompressor;
using namespace arec::test::zstd_records;

constexpr std::array<std::byte, 4> zstd_magic{std::byte{0x28}, std::byte{0xb5}, std::byte{0x2f},
                                              std::byte{0xfd}};

std::vector<std::byte> random_bytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::byte> out(size);
  for (auto& b : out) b = static_cast<std::byte>(random());
  return out;
}

bool starts_with_magic(std::span<const std::byte> payload) {
  return payload.size() >= zstd_magic.size() &&
         std::equal(zstd_magic.begin(), zstd_magic.end(), payload.begin());
}

// Decodes the concatenated payloads with nothing but libzstd and a fresh context.
std::vector<std::byte> plain_zstd_decode(std::span<const std::byte> frame) {
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  std::vector<std::byte> out;
  ZSTD_inBuffer input{frame.data(), frame.size(), 0};
  std::vector<std::byte> buffer(ZSTD_DStreamOutSize());
  for (;;) {
    ZSTD_outBuffer output{buffer.data(), buffer.size(), 0};
    const std::size_t rc = ZSTD_decompressStream(dctx.get(), &output, &input);
    EXPECT_FALSE(ZSTD_isError(rc)) << ZSTD_getErrorName(rc);
    if (ZSTD_isError(rc)) break;
    out.insert(out.end(), buffer.begin(), buffer.begin() + output.pos);
    if (input.pos == input.size && output.pos < output.size) break;
  }
  return out;
}

std::vector<std::byte> concatenated_payloads(std::span<const parsed_record> records) {
  std::vector<std::byte> frame;
  for (const auto& r : records) frame.insert(frame.end(), r.payload.begin(), r.payload.end());
  return frame;
}

TEST(Compressor, RoundTripsSampleStreamThroughPlainZstdAndDecompressor) {
  const auto input = sample_stream(3 << 20, 1);
  compressor c(3);
  const auto run = compress_in_chunks(c, input, 300'000, 2);
  const auto records = parse_records(run.output);
  ASSERT_GT(records.size(), run.chunk_ends.size() / 2);

  EXPECT_EQ(plain_zstd_decode(concatenated_payloads(records)), input);

  decompressor d;
  std::vector<std::byte> decoded;
  for (const auto& r : records) d.feed(r.payload, decoded);
  EXPECT_EQ(decoded, input);

  EXPECT_EQ(c.bytes_in(), input.size());
  EXPECT_EQ(c.bytes_out(), run.output.size());
  EXPECT_LT(c.bytes_out() * 4, c.bytes_in()) << "sample streams compress well";
}

TEST(Compressor, FlushesEveryChunkSoEverythingGivenSoFarDecodes) {
  const auto input = sample_stream(1 << 20, 3);
  compressor c(1);
  const auto run = compress_in_chunks(c, input, 40'000, 4);
  decompressor d;
  std::vector<std::byte> decoded;
  std::size_t offset = 0;
  std::size_t expected = 0;
  for (std::size_t i = 0; i < run.chunk_ends.size(); ++i) {
    const auto chunk_records = std::span(run.output).subspan(offset, run.chunk_ends[i] - offset);
    for (const auto& r : parse_records(chunk_records)) d.feed(r.payload, decoded);
    expected += run.chunk_inputs[i];
    ASSERT_EQ(decoded.size(), expected) << "after chunk " << i;
    offset = run.chunk_ends[i];
  }
  EXPECT_EQ(decoded, input);
}

TEST(Compressor, WritesRecordsOfTypeCompressedWithOnlyTheFirstStartingAFrame) {
  const auto input = sample_stream(2 << 20, 5);
  compressor c(1);
  const auto run = compress_in_chunks(c, input, 200'000, 6);
  const auto records = parse_records(run.output);
  ASSERT_GT(records.size(), 2u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].header.type, 81u);
    EXPECT_LE(records[i].header.size, 65535u);
    EXPECT_EQ(records[i].header.size, 8 + records[i].payload.size());
    EXPECT_EQ(starts_with_magic(records[i].payload), i == 0) << "record " << i;
  }
}

TEST(Compressor, SplitsIncompressibleInputIntoFullRecords) {
  const auto input = random_bytes(1 << 20, 7);
  compressor c(3);
  std::vector<std::byte> out(compressor::bound(input.size()));
  const std::array<std::span<const std::byte>, 1> pieces{input};
  const std::size_t used = c.compress(pieces, out);
  const auto records = parse_records(std::span(out).first(used));
  ASSERT_GE(records.size(), input.size() / compressor::max_payload);
  for (std::size_t i = 0; i + 1 < records.size(); ++i) {
    EXPECT_EQ(records[i].header.size, 65535u) << "record " << i << " is not the last";
  }
  EXPECT_GE(used, input.size()) << "random data does not shrink";
  EXPECT_EQ(plain_zstd_decode(concatenated_payloads(records)), input);
}

TEST(Compressor, FillsARecordExactlyToTheSizeLimitWithoutAnEmptyRecordAfter) {
  compressor c(1);
  std::vector<std::byte> out(compressor::bound(1 << 17));
  decompressor d;
  std::vector<std::byte> decoded;
  const auto compress_one = [&](std::span<const std::byte> input) {
    const std::array<std::span<const std::byte>, 1> pieces{input};
    const auto records = parse_records(std::span(out).first(c.compress(pieces, out)));
    for (const auto& r : records) d.feed(r.payload, decoded);
    return records;
  };
  // Warm up past the frame header; then a random chunk is stored as one raw block: n + 3 bytes.
  compress_one(random_bytes(64, 8));
  const auto probe = compress_one(random_bytes(1000, 9));
  ASSERT_EQ(probe.size(), 1u);
  ASSERT_EQ(probe[0].payload.size(), 1000u + 3) << "premise: random data is stored raw";

  const std::size_t exact = compressor::max_payload - 3;
  const auto at_limit = compress_one(random_bytes(exact, 10));
  ASSERT_EQ(at_limit.size(), 1u);
  EXPECT_EQ(at_limit[0].header.size, 65535u);

  const auto over_limit = compress_one(random_bytes(exact + 1, 11));
  ASSERT_EQ(over_limit.size(), 2u);
  EXPECT_EQ(over_limit[0].header.size, 65535u);
  EXPECT_EQ(over_limit[1].header.size, 8u + 1);
  EXPECT_EQ(decoded.size(), 64 + 1000 + exact + exact + 1);
}

TEST(Compressor, StaysWithinBoundForAnySizeAndSplit) {
  for (const int level : {1, 19}) {
    compressor c(level);
    std::mt19937 random(12);
    for (int i = 0; i < 40; ++i) {
      const std::size_t size = i < 20 ? 1 + i : random() % (level == 1 ? 600'000 : 150'000);
      const auto input = i % 2 ? random_bytes(size, i) : sample_stream(size, i);
      const std::size_t cut = random() % (input.size() + 1);
      const std::array<std::span<const std::byte>, 2> pieces{std::span(input).first(cut),
                                                             std::span(input).subspan(cut)};
      std::vector<std::byte> out(compressor::bound(input.size()));
      EXPECT_LE(c.compress(pieces, out), out.size());
    }
  }
}

TEST(Compressor, WritesNothingForEmptyInput) {
  compressor c(3);
  std::vector<std::byte> out(64, std::byte{0xaa});
  EXPECT_EQ(c.compress({}, out), 0u);
  const std::array<std::span<const std::byte>, 2> empty_pieces{};
  EXPECT_EQ(c.compress(empty_pieces, out), 0u);
  EXPECT_EQ(c.bytes_in(), 0u);
  EXPECT_EQ(c.bytes_out(), 0u);
  EXPECT_TRUE(
      std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0xaa}; }));
}

TEST(Compressor, SkipsEmptyPiecesAroundData) {
  const auto input = sample_stream(10'000, 13);
  compressor c(3);
  const std::array<std::span<const std::byte>, 4> pieces{
      std::span<const std::byte>{}, std::span(input).first(5000), std::span<const std::byte>{},
      std::span(input).subspan(5000)};
  std::vector<std::byte> out(compressor::bound(input.size()));
  const auto records = parse_records(std::span(out).first(c.compress(pieces, out)));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(plain_zstd_decode(records[0].payload), input);
}

TEST(Compressor, RoundTripsAtLevels1And3And19) {
  const auto input = sample_stream(400'000, 14);
  std::vector<std::size_t> sizes;
  for (const int level : {1, 3, 19}) {
    compressor c(level);
    EXPECT_EQ(c.level(), level);
    const auto run = compress_in_chunks(c, input, 64 * 1024, 15);
    EXPECT_EQ(plain_zstd_decode(concatenated_payloads(parse_records(run.output))), input)
        << "level " << level;
    sizes.push_back(run.output.size());
  }
  EXPECT_LT(sizes[2], sizes[0]) << "level 19 compresses better than level 1";
}

TEST(Compressor, RejectsLevelsOutside1To22) {
  for (const int level : {0, -1, 23, 100}) {
    try {
      compressor c(level);
      ADD_FAILURE() << "level " << level << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                "zstd compression level " + std::to_string(level) + " is outside 1..22");
    }
  }
  EXPECT_NO_THROW(compressor(22));
}

TEST(Compressor, RejectsAnOutputBufferBelowBound) {
  const auto input = sample_stream(10'000, 16);
  compressor c(1);
  std::vector<std::byte> out(compressor::bound(input.size()) - 1);
  const std::array<std::span<const std::byte>, 1> pieces{input};
  EXPECT_THROW(c.compress(pieces, out), std::invalid_argument);
  EXPECT_EQ(c.bytes_in(), 0u);
}

TEST(Compressor, AllocatesNothingPerChunkInSteadyState) {
  ASSERT_TRUE(arec::test::counting_works()) << "the test allocator is not in this binary";
  const auto input = sample_stream(8 << 20, 17);
  compressor c(3);
  std::vector<std::byte> out(compressor::bound(256 * 1024));
  std::mt19937 random(18);
  std::size_t position = 0;
  const auto one_chunk = [&] {
    const std::size_t size = 1 + random() % (256 * 1024 - 1);
    if (position + size > input.size()) position = 0;
    const auto chunk = std::span(input).subspan(position, size);
    const std::size_t cut = random() % size;
    const std::array<std::span<const std::byte>, 2> pieces{chunk.first(cut), chunk.subspan(cut)};
    position += size;
    return c.compress(pieces, out);
  };
  // One small first chunk creates the context: zstd sizes its workspace for the level, not for
  // the first input, so bigger chunks later need nothing more.
  const std::array<std::span<const std::byte>, 1> small{std::span(input).first(64)};
  c.compress(small, out);

  const auto news_before = arec::test::operator_new_calls();
  const auto mallocs_before = arec::test::malloc_calls();
  std::size_t produced = 0;
  for (int i = 0; i < 2000; ++i) produced += one_chunk();
  EXPECT_EQ(arec::test::operator_new_calls() - news_before, 0u);
  EXPECT_EQ(arec::test::malloc_calls() - mallocs_before, 0u);
  EXPECT_GT(produced, 0u);
#ifndef AREC_TEST_SANITIZED_MALLOC
  // The counter works: zstd did allocate its context through malloc during the warm-up.
  compressor fresh(3);
  const auto mallocs_fresh = arec::test::malloc_calls();
  const std::array<std::span<const std::byte>, 1> piece{std::span(input).first(1000)};
  fresh.compress(piece, out);
  EXPECT_GT(arec::test::malloc_calls() - mallocs_fresh, 0u);
#endif
}

}  // namespace
