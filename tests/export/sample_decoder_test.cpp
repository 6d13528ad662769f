// sample_decoder: the fields a profile needs, found behind every variable-size part of a
// SAMPLE (READ groups, RAW, branch stacks, user registers and stack) and per event by id.
#include "export/sample_decoder.hpp"

#include <gtest/gtest.h>

#include "support/side_band_records.hpp"

namespace arec::exporting {
namespace {

using test_records::pair;
using test_records::record_with_text;

perf_data::event_entry event_with(std::uint64_t sample_type, std::vector<std::uint64_t> ids) {
  perf_data::event_entry entry = test_records::cpu_clock_event();
  entry.attr.sample_type = sample_type;
  entry.ids = std::move(ids);
  return entry;
}

TEST(SampleDecoder, FindsTheCgroupBehindEveryVariablePart) {
  perf_data::event_entry entry =
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
  std::vector<perf_data::event_entry> events{entry};
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

// A --call-graph dwarf sample as perf 6.1 records it on x86_64: the kernel's call chain, the
// user registers of sample_regs_user 0xff0fff, and the user stack with its filled size.
TEST(SampleDecoder, ReadsTheUserRegistersAndStackInPlace) {
  perf_data::event_entry entry =
      event_with(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
                     PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CGROUP,
                 {});
  entry.attr.sample_regs_user = 0xff0fff;  // AX..SS (0-11), R8..R15 (16-23): 20 registers
  std::vector<std::uint64_t> words{0x401000, pair(7, 8), 1, PERF_CONTEXT_USER,
                                   PERF_SAMPLE_REGS_ABI_64};
  for (std::uint64_t reg = 0; reg < 20; ++reg) words.push_back(0x100 + reg);
  words.insert(words.end(), {24, 0x1111, 0x2222, 0x3333, 12, 0xc6});  // 24 bytes, 12 filled
  std::vector<perf_data::event_entry> events{entry};
  sample_decoder decoder(events);
  std::vector<std::byte> record =
      record_with_text(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, words);
  auto sample = decoder.decode(record);
  ASSERT_TRUE(sample);
  const user_registers& regs = sample->regs_user;
  EXPECT_EQ(regs.abi, static_cast<std::uint64_t>(PERF_SAMPLE_REGS_ABI_64));
  EXPECT_EQ(regs.values.size(), 20u);
  EXPECT_EQ(regs.get(0), 0x100u);         // AX, the first
  EXPECT_EQ(regs.get(7), 0x107u);         // SP
  EXPECT_EQ(regs.get(8), 0x108u);         // IP
  EXPECT_EQ(regs.get(16), 0x10cu);        // R8, after the 12 below it
  EXPECT_EQ(regs.get(23), 0x113u);        // R15, the last
  EXPECT_EQ(regs.get(12), std::nullopt);  // DS: not in the mask
  // Views into the record: nothing copied for an aligned record.
  EXPECT_GE(static_cast<const void*>(regs.values.data()), static_cast<const void*>(record.data()));
  ASSERT_EQ(sample->stack_user.size(), 12u);
  EXPECT_EQ(sample->stack_user.data(), record.data() + 8 * (1 + 1 + 1 + 2 + 1 + 20 + 1));
  std::uint64_t first = 0;
  std::memcpy(&first, sample->stack_user.data(), sizeof first);
  EXPECT_EQ(first, 0x1111u);
  EXPECT_EQ(sample->cgroup, 0xc6u);  // the layout after the stack still lines up
}

TEST(SampleDecoder, ReadsNoRegistersForAKernelThread) {
  perf_data::event_entry entry = event_with(
      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, {});
  entry.attr.sample_regs_user = 0xff0fff;
  std::vector<perf_data::event_entry> events{entry};
  sample_decoder decoder(events);
  // abi NONE: no registers follow; stack size 0: no data and no dyn_size.
  auto sample = decoder.decode(record_with_text(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL,
                                                {0xffff1000, pair(0, 0), 0, 0}));
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->regs_user.abi, 0u);
  EXPECT_TRUE(sample->regs_user.values.empty());
  EXPECT_EQ(sample->regs_user.get(8), std::nullopt);
  EXPECT_TRUE(sample->stack_user.empty());
  EXPECT_TRUE(sample->has_stack_user);
}

TEST(SampleDecoder, RejectsAUserStackLongerThanItsRecord) {
  perf_data::event_entry entry = event_with(PERF_SAMPLE_IP | PERF_SAMPLE_STACK_USER, {});
  std::vector<perf_data::event_entry> events{entry};
  sample_decoder decoder(events);
  EXPECT_FALSE(decoder.decode(record_with_text(PERF_RECORD_SAMPLE, 0, {0x1, 4096, 0x2, 8})));
}

TEST(SampleDecoder, ReadsEachEventsSamplesByTheIdentifier) {
  constexpr std::uint64_t type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
  std::vector<perf_data::event_entry> events{event_with(type, {5, 6}), event_with(type, {9})};
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
  std::vector<perf_data::event_entry> events{
      event_with(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, {})};
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
  std::vector<perf_data::event_entry> events{
      event_with(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN, {})};
  sample_decoder decoder(events);
  // The call chain claims 100 entries; the record holds one.
  EXPECT_FALSE(
      decoder.decode(record_with_text(PERF_RECORD_SAMPLE, 0, {0x1, pair(1, 1), 100, 0x1})));
  EXPECT_FALSE(decoder.decode(record_with_text(PERF_RECORD_SAMPLE, 0, {0x1})));
}

}  // namespace
}  // namespace arec::exporting
