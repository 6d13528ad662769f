#include "record/streaming/ring_reader.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using arec::record::ring_reader;

namespace {

// A ring in plain memory: a control page and a small data area filled with a sentinel, so a
// copy that reads outside [tail, head) shows up as sentinel bytes.
struct fake_ring {
  explicit fake_ring(std::size_t size) : data(size, std::byte{0xEE}) {}
  perf_event_mmap_page control{};
  std::vector<std::byte> data;

  // Writes `bytes` as the kernel would, at the current head, and publishes it.
  void produce(const std::vector<std::byte>& bytes) {
    for (std::byte b : bytes) data[control.data_head++ % data.size()] = b;
  }
};

std::vector<std::byte> pattern(std::size_t n, int seed) {
  std::vector<std::byte> bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = std::byte(static_cast<unsigned char>(seed + i));
  return bytes;
}

std::vector<std::byte> flatten(const arec::record::ring_chunk& chunk) {
  std::vector<std::byte> out;
  for (auto piece : chunk.pieces) out.insert(out.end(), piece.begin(), piece.end());
  return out;
}

}  // namespace

TEST(RingReader, EmptyRingHasNothingUnread) {
  fake_ring ring(64);
  ring_reader reader(&ring.control, ring.data);
  EXPECT_TRUE(reader.unread().empty());
  EXPECT_EQ(reader.unread_bytes(), 0u);
}

TEST(RingReader, ReadsOnePieceThenPublishesTail) {
  fake_ring ring(64);
  ring_reader reader(&ring.control, ring.data);
  auto bytes = pattern(40, 1);
  ring.produce(bytes);
  auto chunk = reader.unread();
  EXPECT_TRUE(chunk.pieces[1].empty());
  EXPECT_EQ(flatten(chunk), bytes);
  reader.consume(chunk.end_position);
  EXPECT_EQ(ring.control.data_tail, 40u);
  EXPECT_TRUE(reader.unread().empty());
}

TEST(RingReader, SplitsAChunkThatWrapsPastTheEnd) {
  fake_ring ring(64);
  ring_reader reader(&ring.control, ring.data);
  ring.produce(pattern(48, 0));
  reader.consume(reader.unread().end_position);
  auto bytes = pattern(40, 100);  // 16 bytes to the end, 24 after the wrap
  ring.produce(bytes);
  auto chunk = reader.unread();
  EXPECT_EQ(chunk.pieces[0].size(), 16u);
  EXPECT_EQ(chunk.pieces[1].size(), 24u);
  EXPECT_EQ(chunk.pieces[1].data(), ring.data.data());
  EXPECT_EQ(flatten(chunk), bytes);
}

TEST(RingReader, HandlesFreeRunningCountersAcrossManyLaps) {
  fake_ring ring(64);
  ring_reader reader(&ring.control, ring.data);
  for (int lap = 0; lap < 100; ++lap) {
    auto bytes = pattern(8 * (1 + lap % 8), lap);
    ring.produce(bytes);
    auto chunk = reader.unread();
    ASSERT_EQ(flatten(chunk), bytes) << "lap " << lap;
    reader.consume(chunk.end_position);
  }
  EXPECT_EQ(ring.control.data_tail, ring.control.data_head);
}

TEST(RingReader, FullRingIsReadWhole) {
  fake_ring ring(64);
  ring_reader reader(&ring.control, ring.data);
  ring.produce(pattern(24, 0));
  reader.consume(reader.unread().end_position);
  auto bytes = pattern(64, 7);
  ring.produce(bytes);
  EXPECT_EQ(flatten(reader.unread()), bytes);
}

// An off-CPU sample whose user stack copy is empty asks for 0 bytes into an empty vector (no
// storage): nothing is copied, and memcpy never sees its null pointer (UBSan in CI found it).
TEST(RingChunk, CopyOutOfNothingIntoNoStorageCopiesNothing) {
  fake_ring ring(64);
  ring_reader reader(&ring.control, ring.data);
  ring.produce(pattern(16, 3));
  auto chunk = reader.unread();
  std::vector<std::byte> none;
  chunk.copy_out(8, none);
  EXPECT_TRUE(none.empty());
}

TEST(RingChunk, CopyOutReadsAcrossTheWrap) {
  fake_ring ring(64);
  ring_reader reader(&ring.control, ring.data);
  ring.produce(pattern(56, 0));
  reader.consume(reader.unread().end_position);
  auto bytes = pattern(32, 50);
  ring.produce(bytes);
  auto chunk = reader.unread();
  std::vector<std::byte> out(16, std::byte{0});
  chunk.copy_out(4, out);  // 4 bytes before the wrap, 12 after
  EXPECT_EQ(0, std::memcmp(out.data(), bytes.data() + 4, 16));
}
