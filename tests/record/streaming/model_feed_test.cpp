// model_feed: side-band records, whole or straddling a ring's wrap, reach the model.
#include "record/streaming/model_feed.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/mman.h>

#include <cstring>
#include <vector>

#include "perf_data/perf_abi.hpp"
#include "record/synthesis/synthesizer.hpp"
#include "support/allocation_counter.hpp"

namespace arec::record {
namespace {

// An MMAP2 record with the kernel's build-id variant of the identity fields.
std::vector<std::byte> mmap2_with_build_id(std::uint32_t pid, std::uint64_t start,
                                           std::string_view name, std::uint8_t first_byte) {
  perf_data::record_buffer buffer;
  perf_data::mapping_record fields;
  fields.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
  fields.pid = static_cast<std::int32_t>(pid);
  fields.tid = static_cast<std::int32_t>(pid);
  fields.start = start;
  fields.len = 0x1000;
  fields.id.size = 20;
  fields.id.bytes[0] = first_byte;
  fields.name = name;
  auto record = perf_data::encode_mmap2(buffer, fields, 32);
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
  perf_data::record_buffer buffer;
  auto encoded = perf_data::encode_fork(buffer, 10, 1, 11, 10, 32);
  std::vector<std::byte> fork{encoded.begin(), encoded.end()};
  feed.apply(fork);
  auto comm = perf_data::encode_comm(buffer, 10, 11, "worker", 32);
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
  perf_data::record_buffer buffer;
  auto comm = perf_data::encode_comm(buffer, 5, 5, "app", 32);
  auto before = arec::test::allocations();
  for (int i = 0; i < 100; ++i) {
    feed.apply(record);
    feed.apply(comm);
  }
  EXPECT_EQ(arec::test::allocations() - before, 0u);
}

// Records whose sample_id trailer is just their time, as the streamer's layout says where.
constexpr std::size_t time_trailer = 8;
std::vector<std::byte> timed(std::span<const std::byte> record, std::uint64_t time) {
  std::vector<std::byte> out{record.begin(), record.end()};
  std::memcpy(out.data() + out.size() - time_trailer, &time, sizeof time);
  return out;
}
// A FORK as the kernel writes it: the encoder's is a synthesized one (misc FORK_EXEC), which
// does not copy the parent's maps.
std::vector<std::byte> kernel_fork(std::uint32_t pid, std::uint32_t ppid, std::uint64_t time) {
  perf_data::record_buffer buffer;
  std::vector<std::byte> record =
      timed(perf_data::encode_fork(buffer, pid, ppid, pid, ppid, time_trailer), time);
  std::uint16_t misc = 0;
  std::memcpy(record.data() + 4, &misc, sizeof misc);
  return record;
}
ring_chunk chunk_of(const std::vector<std::byte>& bytes) {
  return ring_chunk{.pieces = {std::span<const std::byte>(bytes), {}}};
}

// One cpu's ring holds the parent's FORK, COMM and MMAP2; another's the child's FORK, later
// in time but drained first.
struct two_rings {
  std::vector<std::byte> parent_ring, child_ring;
  two_rings() {
    perf_data::record_buffer buffer;
    auto append = [](std::vector<std::byte>& ring, const std::vector<std::byte>& record) {
      ring.insert(ring.end(), record.begin(), record.end());
    };
    append(parent_ring, kernel_fork(20, 1, 100));
    append(parent_ring, timed(perf_data::encode_comm(buffer, 20, 20, "bash", time_trailer), 110));
    perf_data::mapping_record fields;
    fields.pid = fields.tid = 20;
    fields.start = 0x1000;
    fields.len = 0x1000;
    fields.prot = PROT_READ | PROT_EXEC;  // the model keeps executable maps
    fields.name = "/usr/bin/bash";
    append(parent_ring, timed(perf_data::encode_mmap2(buffer, fields, time_trailer), 120));
    append(child_ring, kernel_fork(21, 20, 150));
  }
};

TEST(ModelFeed, AChildDrainedBeforeItsParentStillInheritsItsCommAndMaps) {
  two_rings rings;
  model::machine world;
  model_feed feed{world, time_trailer};
  feed.round_started();
  feed.scan(chunk_of(rings.child_ring));
  feed.scan(chunk_of(rings.parent_ring));
  feed.round_finished();
  feed.round_started();
  feed.round_finished();
  EXPECT_EQ(feed.queued(), 0u);
  auto child = world.tasks().find(21);
  ASSERT_TRUE(child);
  EXPECT_EQ(child->comm(), "bash");
  auto mapped = child->address_space()->find(0x1000);
  ASSERT_TRUE(mapped) << "the child lacks the map its parent made before the fork";
  EXPECT_EQ(mapped->object->name(), "/usr/bin/bash");
}

// What the queue prevents: applied in drain order, the child copies a parent not known yet.
TEST(ModelFeed, InDrainOrderTheChildWouldInheritNothing) {
  two_rings rings;
  model::machine world;
  model_feed feed{world};  // no time layout: applied as scanned
  feed.scan(chunk_of(rings.child_ring));
  feed.scan(chunk_of(rings.parent_ring));
  EXPECT_EQ(world.tasks().find(21)->comm(), "");
  EXPECT_FALSE(world.tasks().find(21)->address_space()->find(0x1000));
}

// A round applies what is as old as the newest record queued before it began; a newer record
// may still have an older one on a ring not drained yet, and waits for the next round.
TEST(ModelFeed, ARoundAppliesOnlyRecordsQueuedBeforeItBegan) {
  perf_data::record_buffer buffer;
  model::machine world;
  model_feed feed{world, time_trailer};
  feed.scan(chunk_of(timed(perf_data::encode_comm(buffer, 30, 30, "first", time_trailer), 100)));
  feed.round_started();
  feed.scan(chunk_of(timed(perf_data::encode_comm(buffer, 31, 31, "second", time_trailer), 200)));
  feed.round_finished();
  EXPECT_EQ(world.tasks().find(30)->comm(), "first");
  EXPECT_FALSE(world.tasks().find(31));
  EXPECT_EQ(feed.queued(), 1u);
  feed.apply_queued();  // a cut or the end
  EXPECT_EQ(world.tasks().find(31)->comm(), "second");
}

// Queued and applied by rounds, COMM and MMAP2 records of a known task and dso cost no
// allocation once the queue's storage has grown (a FORK makes a task: that allocates).
TEST(ModelFeed, AWarmQueueAllocatesNothingForKnownTasks) {
  ASSERT_TRUE(arec::test::counting_works()) << "the test allocator is not in this binary";
  two_rings rings;
  // The parent's ring without its FORK: its COMM and MMAP2.
  std::vector<std::byte> known_task_records(
      rings.parent_ring.begin() + static_cast<std::ptrdiff_t>(kernel_fork(20, 1, 100).size()),
      rings.parent_ring.end());
  model::machine world;
  model_feed feed{world, time_trailer};
  auto round = [&] {
    feed.round_started();
    feed.scan(chunk_of(known_task_records));
    feed.scan(chunk_of(known_task_records));
    feed.round_finished();
    feed.apply_queued();
  };
  round();
  round();
  auto before = arec::test::allocations();
  for (int i = 0; i < 50; ++i) round();
  EXPECT_EQ(arec::test::allocations() - before, 0u);
  EXPECT_EQ(world.tasks().find(20)->comm(), "bash");
}

// A SAMPLE with sample_type IP | TID | TIME: the body is ip, (pid, tid), time.
constexpr sample_position ip_tid_time{.ip = 0, .tid = 8, .time = 16};
std::vector<std::byte> sample_at(std::uint32_t pid, std::uint64_t ip, std::uint64_t time,
                                 std::uint16_t mode = PERF_RECORD_MISC_USER) {
  perf_data::record_header header{PERF_RECORD_SAMPLE, mode, sizeof(perf_data::record_header) + 24};
  std::vector<std::byte> record(header.size);
  std::uint32_t ids[2] = {pid, pid};
  std::memcpy(record.data(), &header, sizeof header);
  std::memcpy(record.data() + 8, &ip, 8);
  std::memcpy(record.data() + 16, ids, 8);
  std::memcpy(record.data() + 24, &time, 8);
  return record;
}

// Counts the dsos the model hears were sampled for the first time.
struct sampled_dsos {
  std::vector<std::string> names;
  explicit sampled_dsos(model::machine& world) {
    world.objects().on_sampled(
        [this](const std::shared_ptr<model::dso>& object) { names.push_back(object->name()); });
  }
};

// The sample's ring is drained before the ring that holds the MMAP2 of its dso: applied in
// time order, the sample still finds the map.
TEST(ModelFeed, ASampleDrainedBeforeTheMmapOfItsDsoMarksThatDso) {
  two_rings rings;
  model::machine world;
  sampled_dsos heard{world};
  model_feed feed{world, time_trailer, ip_tid_time};
  feed.round_started();
  feed.scan(chunk_of(sample_at(20, 0x1800, 130)));
  feed.scan(chunk_of(rings.parent_ring));
  feed.round_finished();
  feed.apply_queued();
  EXPECT_EQ(heard.names, std::vector<std::string>{"/usr/bin/bash"});
  EXPECT_TRUE(world.tasks().find(20)->address_space()->find(0x1000)->object->sampled());
}

TEST(ModelFeed, WithoutASamplePositionSamplesMarkNothing) {
  two_rings rings;
  model::machine world;
  sampled_dsos heard{world};
  model_feed feed{world, time_trailer};
  feed.scan(chunk_of(rings.parent_ring));
  feed.scan(chunk_of(sample_at(20, 0x1800, 130)));
  feed.apply_queued();
  EXPECT_TRUE(heard.names.empty());
}

// Later samples in a range already resolved are skipped when scanned: nothing is queued and
// nothing allocated for them.
// bash (pid 20) mapped at 0x1000 and sampled at 0x1800, applied: its range is resolved.
struct sampled_bash {
  model::machine world;
  sampled_dsos heard{world};
  model_feed feed{world, time_trailer, ip_tid_time};
  sampled_bash() {
    two_rings rings;
    feed.scan(chunk_of(rings.parent_ring));
    feed.scan(chunk_of(sample_at(20, 0x1800, 130)));
    feed.apply_queued();
  }
};

TEST(ModelFeed, SamplesInAResolvedRangeAreSkippedWithoutAllocating) {
  ASSERT_TRUE(arec::test::counting_works()) << "the test allocator is not in this binary";
  sampled_bash bash;
  auto& [world, heard, feed] = bash;
  std::vector<std::byte> later = sample_at(20, 0x1900, 140);
  auto before = arec::test::allocations();
  for (int i = 0; i < 100; ++i) feed.scan(chunk_of(later));
  EXPECT_EQ(arec::test::allocations() - before, 0u);
  EXPECT_EQ(feed.queued(), 0u);
  EXPECT_EQ(heard.names.size(), 1u);
}

TEST(ModelFeed, AKernelSampleMarksTheKernelAndAGuestSampleNothing) {
  model::machine world;
  sampled_dsos heard{world};
  model::mapping_event kernel_map;
  kernel_map.pid = -1;
  kernel_map.start = 0xffffffff81000000;
  kernel_map.len = 0x1000000;
  kernel_map.name = "[kernel.kallsyms]_text";
  world.on_mmap(kernel_map);
  model_feed feed{world, time_trailer, ip_tid_time};
  feed.scan(chunk_of(sample_at(5, 0xffffffff81000100, 10, PERF_RECORD_MISC_GUEST_KERNEL)));
  feed.apply_queued();
  EXPECT_TRUE(heard.names.empty());
  feed.scan(chunk_of(sample_at(5, 0xffffffff81000100, 20, PERF_RECORD_MISC_KERNEL)));
  feed.apply_queued();
  EXPECT_EQ(heard.names, std::vector<std::string>{"[kernel.kallsyms]"});
}

// A non-PIE exec maps the new binary where the old one was: the range learnt for the process
// must not hide the new dso from its samples.
TEST(ModelFeed, ANewMappingOverAResolvedRangeIsMarkedByItsSamples) {
  sampled_bash bash;
  auto& [world, heard, feed] = bash;
  perf_data::record_buffer buffer;
  perf_data::mapping_record fields;
  fields.pid = fields.tid = 20;
  fields.start = 0x1000;
  fields.len = 0x1000;
  fields.prot = PROT_READ | PROT_EXEC;
  fields.name = "/usr/bin/next";
  feed.scan(chunk_of(timed(perf_data::encode_mmap2(buffer, fields, time_trailer), 140)));
  feed.scan(chunk_of(sample_at(20, 0x1800, 150)));
  feed.apply_queued();
  EXPECT_EQ(heard.names, (std::vector<std::string>{"/usr/bin/bash", "/usr/bin/next"}));
}

}  // namespace
}  // namespace arec::record
