// compressed_stream: perf-like record streams, run through a compressor in chunks and split back
// into COMPRESSED records, for the compressor's and the decompressor's tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "perf_data/compressor.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::test::zstd_records {

namespace perf = arec::perf_data;

template <typename T>
void append(std::vector<std::byte>& out, const T& value) {
  const auto* bytes = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

// A perf-like record stream: SAMPLE records (id, ip, pid/tid, time, cpu, period, callchain) with
// repeating stacks and increasing times, with an occasional MMAP2-sized record carrying a name.
inline std::vector<std::byte> sample_stream(std::size_t bytes, std::uint32_t seed) {
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
    append(out, std::uint64_t{42});                      // id
    append(out, stack.front());                          // ip
    append(out, std::uint64_t{(1234ULL << 32) | 1240});  // pid, tid
    append(out, time);                                   // time
    append(out, std::uint64_t{random() % 4});            // cpu, reserved
    append(out, std::uint64_t{100'000});                 // period
    append(out, std::uint64_t{stack.size()});            // callchain nr
    for (auto ip : stack) append(out, ip);
  }
  return out;
}

struct parsed_record {
  perf::record_header header;
  std::span<const std::byte> payload;
};

// Splits compressor output into records, checking the framing on the way.
inline std::vector<parsed_record> parse_records(std::span<const std::byte> bytes) {
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

// Everything one run of a compressor produced, record by record.
struct compressed_run {
  std::vector<std::byte> output;          // all records, as written to the file
  std::vector<std::size_t> chunk_ends;    // offset in `output` after each chunk
  std::vector<std::size_t> chunk_inputs;  // input bytes of each chunk
};

// Feeds `input` to `c` in chunks of random size, every third chunk split in two pieces at a
// random point as a ring wrap splits it; checks each call against bound().
inline compressed_run compress_in_chunks(perf::compressor& c, std::span<const std::byte> input,
                                         std::size_t max_chunk, std::uint32_t seed) {
  std::mt19937 random(seed);
  compressed_run run;
  std::vector<std::byte> out;
  std::size_t position = 0;
  for (int n = 0; position < input.size(); ++n) {
    const std::size_t size =
        std::min<std::size_t>(1 + random() % max_chunk, input.size() - position);
    const auto chunk = input.subspan(position, size);
    std::array<std::span<const std::byte>, 2> pieces{chunk, {}};
    if (n % 3 == 0) {
      const std::size_t cut = random() % (size + 1);
      pieces = {chunk.first(cut), chunk.subspan(cut)};
    }
    out.resize(perf::compressor::bound(size));
    const std::size_t used = c.compress(pieces, out);
    EXPECT_LE(used, out.size());
    run.output.insert(run.output.end(), out.begin(), out.begin() + used);
    run.chunk_ends.push_back(run.output.size());
    run.chunk_inputs.push_back(size);
    position += size;
  }
  return run;
}

}  // namespace arec::test::zstd_records
