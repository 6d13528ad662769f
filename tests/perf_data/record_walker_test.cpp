// record_walker: the framing checks, COMPRESSED and COMPRESSED2 expansion, salvage and the fixed
// read buffer of the one record reader that the converter, salvage and perf_file_reader share.
#include "perf_data/record_walker.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "perf_data/compressor.hpp"
#include "perf_data/format_error.hpp"
#include "support/allocation_counter.hpp"
#include "support/temp_file.hpp"

namespace arec::perf_data {
namespace {

using bytes = std::vector<std::byte>;

// A record of `size` bytes (header included) whose payload bytes all hold `fill`; a size below
// the header's makes a bad record of just a header.
bytes record(std::uint32_t type, std::uint16_t size, std::uint8_t fill = 0) {
  bytes out(std::max<std::size_t>(size, sizeof(record_header)), std::byte{fill});
  record_header header{type, 0, size};
  std::memcpy(out.data(), &header, sizeof header);
  return out;
}

void append(bytes& out, const bytes& part) {
  out.insert(out.end(), part.begin(), part.end());
}

bytes joined(std::initializer_list<bytes> parts) {
  bytes out;
  for (const bytes& part : parts) append(out, part);
  return out;
}

// COMPRESSED records holding `plain`, as arec -z writes them.
bytes compressed(const bytes& plain) {
  compressor zstd(1);
  bytes out(compressor::bound(plain.size()));
  std::array<std::span<const std::byte>, 1> pieces{std::span<const std::byte>(plain)};
  out.resize(zstd.compress(pieces, out));
  return out;
}

// A file holding `prefix` bytes of padding and then `data`; the walker reads [prefix, end).
struct data_file {
  test::temp_file file;
  data_range range;

  explicit data_file(const bytes& data, std::size_t prefix = 16) {
    bytes all(prefix, std::byte{0xee});
    all.insert(all.end(), data.begin(), data.end());
    EXPECT_EQ(::pwrite(file.fd(), all.data(), all.size(), 0), static_cast<ssize_t>(all.size()));
    range = {file.path(), prefix, all.size()};
  }
};

struct walked {
  std::vector<std::uint32_t> types;
  std::vector<std::uint64_t> offsets;
  bytes payload;  // every record's bytes, concatenated
};

walked walk(record_walker& walker) {
  walked out;
  while (auto r = walker.next()) {
    out.types.push_back(r->header.type);
    out.offsets.push_back(r->offset);
    EXPECT_EQ(r->bytes.size(), r->header.size);
    out.payload.insert(out.payload.end(), r->bytes.begin(), r->bytes.end());
  }
  return out;
}

std::string walk_error(const data_range& range) {
  try {
    record_walker walker = record_walker::open(range);
    walk(walker);
  } catch (const format_error& error) {
    return error.what();
  }
  return "no error";
}

TEST(RecordWalker, HandsOutRecordsWithTheirFileOffsets) {
  bytes data = joined({record(3, 24, 1), record(9, 13, 2), record(68, 8)});
  data_file file(data);
  record_walker walker = record_walker::open(file.range);
  walked w = walk(walker);
  EXPECT_EQ(w.types, (std::vector<std::uint32_t>{3, 9, 68}));
  EXPECT_EQ(w.offsets, (std::vector<std::uint64_t>{16, 40, 53}));  // need not be 8-aligned
  EXPECT_EQ(w.payload, data);
  EXPECT_FALSE(walker.damage());
  EXPECT_EQ(walker.bytes_read(), data.size());
}

TEST(RecordWalker, FramingErrorsNameFileOffsetAndProblem) {
  data_file small(joined({record(3, 8), record(9, 4)}));
  EXPECT_EQ(walk_error(small.range),
            small.range.path +
                ": offset 24: record size 4 is smaller than its 8-byte header "
                "(type 9)");
  data_file past(joined({record(3, 8), record(9, 64)}));
  past.range.end -= 40;
  EXPECT_EQ(walk_error(past.range),
            past.range.path +
                ": offset 24: record of size 64 runs past the end of the data "
                "(24 bytes left, type 9); cut short? --salvage keeps the records before it");
  data_file cut(joined({record(3, 8), record(9, 8)}));
  cut.range.end -= 4;
  EXPECT_EQ(walk_error(cut.range),
            cut.range.path +
                ": offset 24: record header truncated: 4 bytes left in the data"
                "; cut short? --salvage keeps the records before it");
}

TEST(RecordWalker, SalvageEndsAtTheDamageAndSaysWhatWasDropped) {
  data_file file(joined({record(3, 16), record(9, 16), record(9, 2), record(9, 16)}));
  record_walker walker = record_walker::open(file.range, {.salvage = true});
  EXPECT_EQ(walk(walker).types, (std::vector<std::uint32_t>{3, 9}));
  ASSERT_TRUE(walker.damage());
  EXPECT_EQ(walker.damage()->offset, 48u);
  EXPECT_EQ(walker.damage()->dropped, 24u);
  EXPECT_EQ(walker.damage()->problem, "record size 2 is smaller than its 8-byte header (type 9)");
}

TEST(RecordWalker, ExpandsCompressedRecordsUnlessToldNot) {
  bytes plain;
  for (int i = 0; i < 3000; ++i) append(plain, record(9, 40, static_cast<std::uint8_t>(i)));
  bytes packed = compressed(plain);
  data_file file(joined({record(3, 16), packed, record(68, 8)}));

  record_walker expanding = record_walker::open(file.range);
  walked w = walk(expanding);
  ASSERT_EQ(w.types.size(), 3002u);
  EXPECT_EQ(w.types.front(), 3u);
  EXPECT_EQ(w.types.back(), 68u);
  EXPECT_EQ(bytes(w.payload.begin() + 16, w.payload.end() - 8), plain);
  EXPECT_EQ(w.offsets[1], 32u);  // a record from inside carries its COMPRESSED record's offset
  EXPECT_GE(expanding.compressed_records(), 1u);

  record_walker raw = record_walker::open(file.range, {.expand_compressed = false});
  walked r = walk(raw);
  EXPECT_EQ(r.types.front(), 3u);
  EXPECT_EQ(r.types[1], record_compressed);
  EXPECT_EQ(r.types.back(), 68u);
  EXPECT_EQ(r.payload, joined({record(3, 16), packed, record(68, 8)}));
}

TEST(RecordWalker, CorruptCompressedDataIsAFormatError) {
  bytes packed = compressed(joined({record(9, 64, 7), record(9, 64, 8)}));
  packed[sizeof(record_header) + 4] ^= std::byte{0xff};
  data_file file(packed);
  EXPECT_NE(walk_error(file.range).find(": offset 16: corrupt COMPRESSED record: "),
            std::string::npos)
      << walk_error(file.range);
}

// The continuous zstd stream the COMPRESSED records of `plain` carry, without their headers.
bytes zstd_stream(const bytes& plain) {
  bytes packed = compressed(plain), stream;
  for (std::size_t at = 0; at < packed.size();) {
    record_header header{};
    std::memcpy(&header, packed.data() + at, sizeof header);
    stream.insert(stream.end(), packed.begin() + static_cast<std::ptrdiff_t>(at + 8),
                  packed.begin() + static_cast<std::ptrdiff_t>(at + header.size));
    at += header.size;
  }
  return stream;
}

// A COMPRESSED2 record as perf 6.16 writes it: `size` in the header (align8(16 + data) unless
// the test says otherwise), data_size, the data, and `padding` zero bytes.
bytes compressed2(std::uint16_t size, std::uint64_t data_size, std::span<const std::byte> data,
                  std::size_t padding) {
  bytes out(16);
  record_header header{record_compressed2, 0, size};
  std::memcpy(out.data(), &header, sizeof header);
  std::memcpy(out.data() + 8, &data_size, sizeof data_size);
  out.insert(out.end(), data.begin(), data.end());
  out.resize(out.size() + padding);
  return out;
}

// `data` as 8-aligned COMPRESSED2 records of up to 40,000 bytes each, appended to `out`.
void append_aligned_compressed2(bytes& out, std::span<const std::byte> data) {
  for (std::size_t at = 0; at < data.size(); at += 40000) {
    std::span<const std::byte> chunk =
        data.subspan(at, std::min<std::size_t>(40000, data.size() - at));
    std::size_t aligned = (16 + chunk.size() + 7) & ~std::size_t{7};
    append(out, compressed2(static_cast<std::uint16_t>(aligned), chunk.size(), chunk,
                            aligned - 16 - chunk.size()));
  }
}

// Records that zstd cannot shrink much: a few hundred KiB of them make zstd chunks of 64 KiB.
bytes incompressible_records(std::size_t count) {
  std::mt19937_64 random(7);
  bytes plain;
  for (std::size_t i = 0; i < count; ++i) {
    bytes one = record(9, 64);
    for (std::size_t at = 8; at < 64; at += 8) {
      std::uint64_t word = random();
      std::memcpy(one.data() + at, &word, sizeof word);
    }
    append(plain, one);
  }
  return plain;
}

// perf 6.16's -z files: COMPRESSED2 records, 8-aligned with data_size; and the two forms its
// writer leaves when the u16 size wraps at 64 KiB (no padding then): one zstd chunk of
// 65,513-65,519 bytes (size 0), and several chunks written as one record, the later ones with
// headers of their own inside the data. Each expands to the records compressed.
TEST(RecordWalker, ExpandsCompressed2InEveryFormPerfWrites) {
  bytes plain = incompressible_records(6000);  // 384 KiB
  bytes stream = zstd_stream(plain);
  ASSERT_GT(stream.size(), 3u * 65536);
  std::span<const std::byte> z{stream};

  bytes aligned;
  append_aligned_compressed2(aligned, z);

  bytes single_wrap = compressed2(0, 65515, z.first(65515), 0);  // align8(16 + 65515) = 65536
  append_aligned_compressed2(single_wrap, z.subspan(65515));

  // Two chunks in one record: 65,519 bytes, then a header {83, 0, 16 + rest} whose data_size
  // perf leaves unset, then the rest; the first header has the totals, its size wrapped.
  std::size_t first = 65519, rest = z.size() - first;
  bytes inner = compressed2(static_cast<std::uint16_t>(16 + std::min<std::size_t>(rest, 40000)),
                            0xdeadbeef, z.subspan(first, std::min<std::size_t>(rest, 40000)), 0);
  bytes data(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(first));
  append(data, inner);
  std::size_t total = data.size();
  bytes multi_wrap = compressed2(
      static_cast<std::uint16_t>(((16 + total + 7) & ~std::size_t{7}) & 0xffff), total, data, 0);
  append_aligned_compressed2(multi_wrap, z.subspan(first + std::min<std::size_t>(rest, 40000)));

  for (const bytes* form : {&aligned, &single_wrap, &multi_wrap}) {
    SCOPED_TRACE(form == &aligned       ? "aligned"
                 : form == &single_wrap ? "single wrap"
                                        : "multi wrap");
    data_file file(joined({record(3, 16), *form, record(68, 8)}));
    record_walker walker = record_walker::open(file.range);
    walked w = walk(walker);
    ASSERT_EQ(w.types.size(), 6002u);
    EXPECT_EQ(w.types.back(), 68u);
    EXPECT_EQ(bytes(w.payload.begin() + 16, w.payload.end() - 8), plain);
    EXPECT_FALSE(walker.damage());
  }
}

TEST(RecordWalker, Compressed2WhoseSizesDisagreeIsAFormatError) {
  bytes data(1000, std::byte{1});
  data_file file(compressed2(64, data.size(), data, 0));
  EXPECT_EQ(
      walk_error(file.range),
      file.range.path + ": offset 16: COMPRESSED2 record: data_size 1000 does not fit its size 64");
}

TEST(RecordWalker, RecordsSpanningBufferRefillsAreWhole) {
  // Records of every size class across many refills of the smallest allowed buffer.
  bytes data;
  for (int i = 0; i < 1000; ++i)
    append(data, record(9, static_cast<std::uint16_t>(8 + (i * 7919) % 65000), 3));
  data_file file(data);
  record_walker walker = record_walker::open(file.range, {.buffer_bytes = 2 * max_record_size + 2});
  walked w = walk(walker);
  EXPECT_EQ(w.types.size(), 1000u);
  EXPECT_EQ(w.payload, data);
}

TEST(RecordWalker, AllocatesNothingPerRecord) {
  bytes data;
  for (int i = 0; i < 20000; ++i) append(data, record(9, 48));
  data_file file(data);
  record_walker walker = record_walker::open(file.range);
  ASSERT_TRUE(walker.next());  // the buffers are made by now
#ifndef AREC_TEST_NO_ALLOCATION_COUNTING
  ASSERT_TRUE(test::counting_works());
#endif
  std::uint64_t before = test::allocations();
  std::size_t records = 1;
  while (walker.next()) ++records;
  EXPECT_EQ(test::allocations(), before);
  EXPECT_EQ(records, 20000u);
}

}  // namespace
}  // namespace arec::perf_data
