// sample_decoder: the fields a profile needs, found behind every variable-size part of a
// SAMPLE (READ groups, RAW, branch stacks, user registers and stack) and per event by id.
#include "export/sample_decoder.hpp"

#include <gtest/gtest.h>

#include "side_band_records.hpp"

namespace arec::exporting {
namespace {

using test_records::pair;
using test_records::record_with_text;

io::perf::event_entry event_with(std::uint64_t sample_type, std::vector<std::uint64_t> ids) {
  io::perf::event_entry entry = test_records::cpu_clock_event();
  entry.attr.sample_type = sample_type;
  entry.ids = std::move(ids);
  return entry;
}

TEST(SampleDecoder, FindsTheCgroupBehindEveryVariablePart) {
  io::perf::event_entry entry =
      event_with(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN |
                     PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
                     PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_CGROUP,
                 {});
  entry.attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  entry.attr.sample_regs_user = 0b1011;  // three registers
  std::vector<std::uint64_t> words{0x1234,
                                   pair(10, 11),  // ip, pid/tid
                                   2,
                                   100,
                                   1,
                                   200,
                                   2,  // READ: nr, (value, id) x 2
                                   2,
                                   PERF_CONTEXT_USER,
                                   0x1234,  // CALLCHAIN
                                   pair(12, 0xaaaaaaaa),
                                   0xbbbbbbbbbbbbbbbb,  // RAW: u32 size 12, 12 bytes
                                   1,
                                   0x1,
                                   0x2,
                                   0x3,  // BRANCH_STACK: nr, one entry
                                   1,
                                   0x10,
                                   0x20,
                                   0x30,  // REGS_USER: abi, 3 registers
                                   16,
                                   0xdead,
                                   0xbeef,
                                   16,     // STACK_USER: size, data, dyn_size
                                   77,     // WEIGHT
                                   0xc6};  // CGROUP
  std::vector<io::perf::event_entry> events{entry};
  sample_decoder decoder(events);
  auto sample = decoder.decode(record_with_text(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, words));
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->ip, 0x1234u);
  EXPECT_EQ(sample->pid, 10);
  EXPECT_EQ(sample->tid, 11);
  EXPECT_EQ(sample->callchain.size(), 2u);
  EXPECT_TRUE(sample->has_cgroup);
  EXPECT_EQ(sample->cgroup, 0xc6u);
  EXPECT_EQ(sample->period, test_records::period_ns);  // no PERIOD field: the attr's
}

TEST(SampleDecoder, ReadsEachEventsSamplesByTheIdentifier) {
  constexpr std::uint64_t type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
  std::vector<io::perf::event_entry> events{event_with(type, {5, 6}), event_with(type, {9})};
  sample_decoder decoder(events);
  auto sample = decoder.decode(record_with_text(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL,
                                                {9, 0xffff1000, pair(1, 2), 777, pair(3, 0), 42}));
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->event, 1u);
  EXPECT_EQ(sample->time, 777u);
  EXPECT_TRUE(sample->has_cpu);
  EXPECT_EQ(sample->cpu, 3u);
  EXPECT_EQ(sample->period, 42u);
  EXPECT_EQ(sample->misc, PERF_RECORD_MISC_KERNEL);
}

TEST(SampleDecoder, CopiesTheCallChainOfAnUnalignedRecord) {
  std::vector<io::perf::event_entry> events{event_with(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, {})};
  sample_decoder decoder(events);
  std::vector<std::byte> record =
      record_with_text(PERF_RECORD_SAMPLE, 0, {0x1, 3, PERF_CONTEXT_USER, 0x1, 0x2});
  std::vector<std::byte> shifted(record.size() + 4);
  std::memcpy(shifted.data() + 4, record.data(), record.size());
  auto sample = decoder.decode(std::span{shifted}.subspan(4));
  ASSERT_TRUE(sample);
  EXPECT_EQ(std::vector<std::uint64_t>(sample->callchain.begin(), sample->callchain.end()),
            (std::vector<std::uint64_t>{PERF_CONTEXT_USER, 0x1, 0x2}));
}

TEST(SampleDecoder, RejectsASampleCutShortOfItsLayout) {
  std::vector<io::perf::event_entry> events{
      event_with(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN, {})};
  sample_decoder decoder(events);
  // The call chain claims 100 entries; the record holds one.
  EXPECT_FALSE(
      decoder.decode(record_with_text(PERF_RECORD_SAMPLE, 0, {0x1, pair(1, 1), 100, 0x1})));
  EXPECT_FALSE(decoder.decode(record_with_text(PERF_RECORD_SAMPLE, 0, {0x1})));
}

}  // namespace
}  // namespace arec::exporting
