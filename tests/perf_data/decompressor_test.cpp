// Specification of the decompressor: COMPRESSED payloads that a compressor wrote decode back to
// the record stream, records straddling payloads included; a corrupt or out-of-order payload
// throws.
#include "perf_data/decompressor.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "compressed_stream.hpp"
#include "perf_data/compressor.hpp"
#include "perf_data/perf_abi.hpp"

namespace {

using arec::perf_data::compressor;
using arec::perf_data::decompressor;
using namespace arec::test::zstd_records;
namespace perf = arec::perf_data;

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
