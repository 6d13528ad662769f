// convert's hotspot form of off-CPU time: for each offcpu-time sample a sched:sched_switch
// sample with its stack at the block's start, a SWITCH out there and a SWITCH in at its end;
// blocks recorded one by one keep their times, sums are packed back from where they were
// written so that no two stretches of a thread overlap.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "convert/converter.hpp"
#include "perf_data/perf_file_reader.hpp"
#include "perf_data/record_walker.hpp"
#include "records.hpp"
#include "support/temp_dir.hpp"

namespace arec::convert {
namespace {

using namespace test_records;

constexpr std::uint64_t cpu_clock_id = 1, off_cpu_id = 2;
constexpr std::uint64_t off_cpu_type = sample_type | PERF_SAMPLE_CALLCHAIN;

// IDENTIFIER, IP, TID, TIME, CPU, PERIOD, then CALLCHAIN with one frame.
std::vector<std::byte> off_cpu_sample(std::uint32_t pid, std::uint32_t tid, std::uint64_t end,
                                      std::uint64_t period, std::uint64_t frame) {
  return record(PERF_RECORD_SAMPLE, off_cpu_id, frame, (std::uint64_t{tid} << 32) | pid, end,
                std::uint64_t{1}, period, std::uint64_t{1}, frame);
}

// What the converted file holds besides the input: (type, misc or period, tid, time, frame).
using seen = std::tuple<std::uint32_t, std::uint64_t, std::uint32_t, std::uint64_t, std::uint64_t>;

std::vector<seen> made_records(const std::string& path, std::uint64_t& switch_id) {
  auto file = perf_data::perf_file_reader::open(path);
  for (const perf_data::event_entry& event : file.events())
    if (event.name == "sched:sched_switch" && !event.ids.empty()) switch_id = event.ids.front();
  const auto& header = file.header();
  auto source = perf_data::record_walker::open(
      {path, header.data.offset, header.data.offset + header.data.size});
  std::vector<seen> out;
  while (auto r = source.next()) {
    if (r->header.type != PERF_RECORD_SWITCH && r->header.type != PERF_RECORD_SAMPLE) continue;
    std::vector<std::uint64_t> words(r->bytes.size() / 8 - 1);
    std::memcpy(words.data(), r->bytes.data() + 8, words.size() * 8);
    if (r->header.type == PERF_RECORD_SWITCH)  // trailer: TID, TIME, CPU, IDENTIFIER
      out.emplace_back(r->header.type, r->header.misc, words[0] >> 32, words[1], words[3]);
    else if (r->header.type == PERF_RECORD_SAMPLE && words[0] != off_cpu_id &&
             words[0] != cpu_clock_id)
      out.emplace_back(r->header.type, words[5], words[2] >> 32, words[3], words[7]);
  }
  return out;
}

std::string recording(const test::temp_dir& dir) {
  std::vector<perf_data::event_entry> events{event(sample_type, {cpu_clock_id}),
                                             event(off_cpu_type, {off_cpu_id})};
  events[0].name = "cpu-clock";
  events[1].name = "offcpu-time";
  perf_data::feature_set features;
  features.set(perf_data::feature_event_desc, perf_data::event_desc_payload(events));
  std::string path = dir.file("offcpu.data");
  write_recording(path, events,
                  {
                      off_cpu_sample(10, 11, 5000, 1000, 0xa),    // recorded on its own
                      off_cpu_sample(10, 12, 6500, 5000, 0xc),    // another thread
                      off_cpu_sample(10, 11, 9000, 2000, 0xb),    // on its own
                      off_cpu_sample(10, 11, 10000, 1500, 0x51),  // sums written at the end
                      off_cpu_sample(10, 11, 10000, 800, 0x52),
                  },
                  features);
  return path;
}

constexpr std::uint32_t sample = PERF_RECORD_SAMPLE, switched = PERF_RECORD_SWITCH;
constexpr std::uint64_t out = PERF_RECORD_MISC_SWITCH_OUT;

TEST(ConvertOffCpuSwitches, EachBlockIsASchedSwitchSampleBetweenASwitchOutAndIn) {
  test::temp_dir dir;
  convert_options options;
  options.input = recording(dir);
  options.output = dir.file("out.perf");
  convert_report report = convert(options);
  EXPECT_EQ(report.off_cpu_blocks, 5u);
  EXPECT_EQ(report.samples, 5u) << "the made records are not the recording's";

  std::uint64_t switch_id = 0;
  std::vector<seen> made = made_records(options.output, switch_id);
  EXPECT_GT(switch_id, off_cpu_id);
  // Thread 11 from its last block back: the 1500 ns sum ends at 10000, the 800 ns one just
  // before it began, the block that ended at 9000 is moved before those, the one at 5000 stays.
  EXPECT_EQ(made, (std::vector<seen>{
                      {sample, 1, 12, 1500, 0xc},
                      {switched, out, 12, 1500, switch_id},
                      {sample, 1, 11, 4000, 0xa},
                      {switched, out, 11, 4000, switch_id},
                      {switched, 0, 11, 5000, switch_id},
                      {sample, 1, 11, 5698, 0xb},
                      {switched, out, 11, 5698, switch_id},
                      {switched, 0, 12, 6500, switch_id},
                      {switched, 0, 11, 7698, switch_id},
                      {sample, 1, 11, 7699, 0x52},
                      {switched, out, 11, 7699, switch_id},
                      {switched, 0, 11, 8499, switch_id},
                      {sample, 1, 11, 8500, 0x51},
                      {switched, out, 11, 8500, switch_id},
                      {switched, 0, 11, 10000, switch_id},
                  }));
}

TEST(ConvertOffCpuSwitches, AreLeftOutWhenAskedAndWithoutOffCpuSamples) {
  test::temp_dir dir;
  convert_options options;
  options.input = recording(dir);
  options.output = dir.file("out.perf");
  options.off_cpu_switches = false;
  EXPECT_EQ(convert(options).off_cpu_blocks, 0u);
  std::uint64_t switch_id = 0;
  EXPECT_TRUE(made_records(options.output, switch_id).empty());
  EXPECT_EQ(switch_id, 0u) << "no sched:sched_switch attr";
}

}  // namespace
}  // namespace arec::convert
