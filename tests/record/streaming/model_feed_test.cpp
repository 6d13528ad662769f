// model_feed: side-band records, whole or straddling a ring's wrap, reach the model.
#include "record/streaming/model_feed.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstring>
#include <vector>

#include "record/synthesis/synthesizer.hpp"
#include "support/allocation_counter.hpp"

namespace arec::record {
namespace {

// An MMAP2 record with the kernel's build-id variant of the identity fields.
std::vector<std::byte> mmap2_with_build_id(std::uint32_t pid, std::uint64_t start,
                                           std::string_view name, std::uint8_t first_byte) {
  io::perf::record_buffer buffer;
  io::perf::mmap2_fields fields;
  fields.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
  fields.pid = pid;
  fields.tid = pid;
  fields.start = start;
  fields.len = 0x1000;
  // build_id_size = 20 in the low byte of `major`, the bytes from minor onwards.
  fields.major = 20;
  fields.minor = first_byte;
  auto record = io::perf::encode_mmap2(buffer, fields, name, 32);
  return {record.begin(), record.end()};
}

TEST(ModelFeed, Mmap2WithBuildIdCreatesTheDsoWithThatBuildId) {
  model::machine world;
  model_feed feed{world};
  feed.apply(mmap2_with_build_id(7, 0x400000, "/usr/bin/app", 0xab));
  auto found = world.tasks().find(7)->address_space()->find(0x400000);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->object->name(), "/usr/bin/app");
  EXPECT_EQ(found->object->build_id().size, 20);
  EXPECT_EQ(found->object->build_id().bytes[0], 0xab);
}

TEST(ModelFeed, CommForkExitFromEncodedRecords) {
  model::machine world;
  model_feed feed{world};
  io::perf::record_buffer buffer;
  auto encoded = io::perf::encode_fork(buffer, 10, 1, 11, 10, 32);
  std::vector<std::byte> fork{encoded.begin(), encoded.end()};
  feed.apply(fork);
  auto comm = io::perf::encode_comm(buffer, 10, 11, "worker", 32);
  feed.apply(comm);
  EXPECT_EQ(world.tasks().find(11)->comm(), "worker");
  // EXIT has FORK's layout.
  std::vector<std::byte> exit = fork;
  std::uint32_t type = PERF_RECORD_EXIT;
  std::memcpy(exit.data(), &type, 4);
  feed.apply(exit);
  EXPECT_FALSE(world.tasks().find(11));
}

TEST(ModelFeed, ChunkRecordsStraddlingTheWrapAreApplied) {
  auto first = mmap2_with_build_id(5, 0x1000, "/lib/a.so", 1);
  auto second = mmap2_with_build_id(5, 0x8000, "/lib/b.so", 2);
  std::vector<std::byte> all = first;
  all.insert(all.end(), second.begin(), second.end());
  std::size_t cut = first.size() + 16;  // inside the second record
  ring_chunk chunk;
  chunk.pieces[0] = std::span{all}.first(cut);
  chunk.pieces[1] = std::span{all}.subspan(cut);
  model::machine world;
  model_feed feed{world};
  feed.scan(chunk);
  auto space = world.tasks().find(5)->address_space();
  ASSERT_TRUE(space->find(0x8000));
  EXPECT_EQ(space->find(0x8000)->object->name(), "/lib/b.so");
  EXPECT_EQ(space->find(0x1000)->object->name(), "/lib/a.so");
}

TEST(ModelFeed, KnownTaskAndDsoAllocateNothing) {
  ASSERT_TRUE(arec::test::counting_works()) << "the test allocator is not in this binary";
  model::machine world;
  model_feed feed{world};
  auto record = mmap2_with_build_id(5, 0x1000, "/lib/a.so", 1);
  feed.apply(record);
  io::perf::record_buffer buffer;
  auto comm = io::perf::encode_comm(buffer, 5, 5, "app", 32);
  auto before = arec::test::allocations();
  for (int i = 0; i < 100; ++i) {
    feed.apply(record);
    feed.apply(comm);
  }
  EXPECT_EQ(arec::test::allocations() - before, 0u);
}

}  // namespace
}  // namespace arec::record
