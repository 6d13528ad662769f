// Specification of the COMPRESSED record stage: compressor output is a valid perf record stream
// whose payloads form one zstd frame, decodable with plain zstd and with decompressor.
#include "io/perf_data/compressor.hpp"

#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include "io/perf_data/perf_abi.hpp"
#include "io/perf_data/decompressor.hpp"
#include "support/allocation_counter.hpp"



namespace {

using arec::io::perf::compressor;
using arec::io::perf::decompressor;
namespace perf = arec::io::perf;

constexpr std::array<std::byte, 4> zstd_magic{std::byte{0x28}, std::byte{0xb5}, std::byte{0x2f},
                                              std::byte{0xfd}};

template <typename T>
void append(std::vector<std::byte>& out, const T& value) {
  const auto* bytes = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

// A perf-like record stream: SAMPLE records (id, ip, pid/tid, time, cpu, period, callchain) with
// repeating stacks and increasing times, with an occasional MMAP2-sized record carrying a name.
std::vector<std::byte> sample_stream(std::size_t bytes, std::uint32_t seed) {
  std::mt19937_64 random(seed);
  std::array<std::vector<std::uint64_t>, 16> stacks;
  for (auto& stack : stacks) {
    stack.resize(3 + random() % 20);
    for (auto& ip : stack) ip = 0x400000 + (random() % 0x10000) * 8;
  }
  std::vector<std::byte> out;
  out.reserve(bytes + 1024);
  std::uint64_t time = 1'000'000'000;
  while (out.size() < bytes) {
    if (random() % 50 == 0) {
      const std::size_t name_words = 1 + random() % 8;
      append(out, perf::record_header{PERF_RECORD_MMAP2, 2,
                                      static_cast<std::uint16_t>(8 + 64 + 8 * name_words)});
      for (int i = 0; i < 8; ++i) append(out, std::uint64_t{random()});
      for (std::size_t i = 0; i < name_words; ++i) append(out, std::uint64_t{0x6f732e6362696c2f});
      continue;
    }
    const auto& stack = stacks[random() % stacks.size()];
    time += 1000 + random() % 5000;
    append(out, perf::record_header{PERF_RECORD_SAMPLE, 2,
                                    static_cast<std::uint16_t>(8 + 8 * 7 + 8 * stack.size())});
    append(out, std::uint64_t{42});                          // id
    append(out, stack.front());                              // ip
    append(out, std::uint64_t{(1234ULL << 32) | 1240});      // pid, tid
    append(out, time);                                       // time
    append(out, std::uint64_t{random() % 4});                // cpu, reserved
    append(out, std::uint64_t{100'000});                     // period
    append(out, std::uint64_t{stack.size()});                // callchain nr
    for (auto ip : stack) append(out, ip);
  }
  return out;
}

std::vector<std::byte> random_bytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::byte> out(size);
  for (auto& b : out) b = static_cast<std::byte>(random());
  return out;
}

struct parsed_record {
  perf::record_header header;
  std::span<const std::byte> payload;
};

// Splits compressor output into records, checking the framing on the way.
std::vector<parsed_record> parse_records(std::span<const std::byte> bytes) {
  std::vector<parsed_record> records;
  while (!bytes.empty()) {
    perf::record_header header;
    EXPECT_GE(bytes.size(), sizeof header);
    if (bytes.size() < sizeof header) break;
    std::memcpy(&header, bytes.data(), sizeof header);
    EXPECT_EQ(header.type, perf::record_compressed);
    EXPECT_EQ(header.misc, 0);
    EXPECT_GT(header.size, sizeof header);
    EXPECT_LE(header.size, bytes.size());
    if (header.size <= sizeof header || header.size > bytes.size()) break;
    records.push_back({header, bytes.subspan(sizeof header, header.size - sizeof header)});
    bytes = bytes.subspan(header.size);
  }
  return records;
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

// Everything one run of a compressor produced, record by record.
struct compressed_run {
  std::vector<std::byte> output;            // all records, as written to the file
  std::vector<std::size_t> chunk_ends;      // offset in `output` after each chunk
  std::vector<std::size_t> chunk_inputs;    // input bytes of each chunk
};

// Feeds `input` to `c` in chunks of random size, every third chunk split in two pieces at a
// random point as a ring wrap splits it; checks each call against bound().
compressed_run compress_in_chunks(compressor& c, std::span<const std::byte> input,
                                  std::size_t max_chunk, std::uint32_t seed) {
  std::mt19937 random(seed);
  compressed_run run;
  std::vector<std::byte> out;
  std::size_t position = 0;
  for (int n = 0; position < input.size(); ++n) {
    const std::size_t size = std::min<std::size_t>(1 + random() % max_chunk, input.size() - position);
    const auto chunk = input.subspan(position, size);
    std::array<std::span<const std::byte>, 2> pieces{chunk, {}};
    if (n % 3 == 0) {
      const std::size_t cut = random() % (size + 1);
      pieces = {chunk.first(cut), chunk.subspan(cut)};
    }
    out.resize(compressor::bound(size));
    const std::size_t used = c.compress(pieces, out);
    EXPECT_LE(used, out.size());
    run.output.insert(run.output.end(), out.begin(), out.begin() + used);
    run.chunk_ends.push_back(run.output.size());
    run.chunk_inputs.push_back(size);
    position += size;
  }
  return run;
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
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0xaa}; }));
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

TEST(Decompressor, ThrowsZstdMessageOnCorruptPayload) {
  const auto input = sample_stream(100'000, 19);
  compressor c(3);
  std::vector<std::byte> out(compressor::bound(input.size()));
  const std::array<std::span<const std::byte>, 1> pieces{input};
  const auto records = parse_records(std::span(out).first(c.compress(pieces, out)));
  ASSERT_EQ(records.size(), 1u);

  std::vector<std::byte> payload(records[0].payload.begin(), records[0].payload.end());
  payload[0] = std::byte{0};  // breaks the frame magic
  decompressor d;
  std::vector<std::byte> decoded;
  try {
    d.feed(payload, decoded);
    FAIL() << "corrupt payload accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "zstd decompression failed: Unknown frame descriptor");
  }
}

TEST(Decompressor, ThrowsOnAPayloadFromTheMiddleOfAStream) {
  const auto input = sample_stream(200'000, 20);
  compressor c(3);
  const auto run = compress_in_chunks(c, input, 50'000, 21);
  const auto records = parse_records(run.output);
  ASSERT_GT(records.size(), 1u);
  decompressor d;
  std::vector<std::byte> decoded;
  EXPECT_THROW(d.feed(records[1].payload, decoded), std::runtime_error);
}

TEST(Decompressor, ReassemblesRecordsStraddlingPayloads) {
  // Big records and small payloads: record boundaries fall inside payloads, never at their ends.
  const auto input = sample_stream(500'000, 22);
  compressor c(1);
  const auto run = compress_in_chunks(c, input, 1001, 23);
  decompressor d;
  std::vector<std::byte> decoded;
  for (const auto& r : parse_records(run.output)) d.feed(r.payload, decoded);
  ASSERT_EQ(decoded, input);
  // The reassembled stream walks as records from start to end.
  std::size_t offset = 0;
  while (offset + 8 <= decoded.size()) {
    perf::record_header header;
    std::memcpy(&header, decoded.data() + offset, sizeof header);
    ASSERT_TRUE(header.type == PERF_RECORD_SAMPLE || header.type == PERF_RECORD_MMAP2);
    offset += header.size;
  }
  EXPECT_EQ(offset, decoded.size());
}

}  // namespace
