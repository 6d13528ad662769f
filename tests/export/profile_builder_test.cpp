// profile_builder: samples summed per stack and labels, locations, functions, mappings and
// strings each stored once, callers at return address - 1, windows cut by finish(), and no
// allocation per sample once the tables are warm.
#include "export/profile_builder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "export/folded_writer.hpp"
#include "support/allocation_counter.hpp"
#include "support/jitdump_bytes.hpp"
#include "support/side_band_records.hpp"
#include "support/temp_dir.hpp"

namespace arec::exporting {
namespace {

using namespace test_records;

constexpr std::uint64_t kernel_start = 0xffffffff81000000;
constexpr std::uint64_t user_start = 0x400000;
constexpr std::uint64_t user_ctx = PERF_CONTEXT_USER;
constexpr std::uint64_t kernel_ctx = PERF_CONTEXT_KERNEL;

class ProfileBuilder : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_.file("kallsyms")) << "ffffffff81000000 T k_entry\n"
                                         << "ffffffff81000100 t k_work\n"
                                         << "ffffffff81000200 D k_data\n";
    builder_settings settings;
    settings.symbols.kallsyms_path = dir_.file("kallsyms");
    settings.symbols.build_id_dir = dir_.path();
    settings.perf_map_dir = dir_.path();  // none there: the host's /tmp plays no part
    events_.push_back(cpu_clock_event());
    builder_ = std::make_unique<profile_builder>(events_, settings);
    builder_->add(kernel_mmap(kernel_start, 0x1000000));
    builder_->add(mmap2(100, user_start, 0x10000, 0, "/nonexistent/app"));
    builder_->add(comm(100, 100, "app"));
    builder_->add(comm(100, 101, "worker"));
  }

  std::string text(const profile& out, std::int64_t index) const {
    return out.strings.at(static_cast<std::size_t>(index));
  }

  test::temp_dir dir_;
  std::vector<perf_data::event_entry> events_;
  std::unique_ptr<profile_builder> builder_;
};

TEST_F(ProfileBuilder, SumsSamplesOfTheSameStackAndLabels) {
  for (int i = 0; i < 3; ++i)
    builder_->add(sample(100, 100, 1000 + i, 0, PERF_RECORD_MISC_USER,
                         {user_ctx, user_start + 0x10, user_start + 0x200}));
  builder_->add(sample(100, 101, 2000, 0, PERF_RECORD_MISC_USER,
                       {user_ctx, user_start + 0x10, user_start + 0x200}));
  profile out = builder_->finish(5'000, 9'000);
  ASSERT_EQ(out.samples.size(), 2u);  // two threads: two label sets
  ASSERT_EQ(out.sample_types.size(), 2u);
  EXPECT_EQ(text(out, out.sample_types[0].type), "cpu-clock_samples");
  EXPECT_EQ(text(out, out.sample_types[0].unit), "count");
  EXPECT_EQ(text(out, out.sample_types[1].type), "cpu-clock");
  EXPECT_EQ(text(out, out.sample_types[1].unit), "nanoseconds");
  EXPECT_EQ(out.samples[0].values, (std::vector<std::int64_t>{3, 3 * period_ns}));
  EXPECT_EQ(out.samples[1].values, (std::vector<std::int64_t>{1, period_ns}));
  EXPECT_EQ(out.samples[0].location_ids, out.samples[1].location_ids);
  EXPECT_EQ(out.time_nanos, 5'000);
  EXPECT_EQ(out.duration_nanos, 4'000);
  EXPECT_EQ(out.period, static_cast<std::int64_t>(period_ns));
  EXPECT_EQ(text(out, out.period_type.unit), "nanoseconds");
  EXPECT_EQ(text(out, out.default_sample_type), "cpu-clock");
}

TEST_F(ProfileBuilder, LabelsNameProcessThreadCommandAndCpu) {
  builder_->add(sample(100, 101, 1000, 3, PERF_RECORD_MISC_USER, {user_ctx, user_start}));
  profile out = builder_->finish(0, 1);
  ASSERT_EQ(out.samples.size(), 1u);
  std::map<std::string, std::string> labels;
  for (const sample_label& label : out.samples[0].labels)
    labels[text(out, label.key)] = label.str ? text(out, label.str) : std::to_string(label.num);
  EXPECT_EQ(labels, (std::map<std::string, std::string>{
                        {"pid", "100"}, {"tid", "101"}, {"comm", "worker"}, {"cpu", "3"}}));
}

TEST_F(ProfileBuilder, StoresEachLocationFunctionMappingAndStringOnce) {
  // Kernel then user frames: two kernel addresses in k_work, one in k_entry.
  for (std::uint64_t leaf : {kernel_start + 0x110, kernel_start + 0x120, kernel_start + 0x110})
    builder_->add(sample(
        100, 100, 1000, 0, PERF_RECORD_MISC_KERNEL,
        {kernel_ctx, leaf, kernel_start + 0x20, user_ctx, user_start + 0x10, user_start + 0x200}));
  profile out = builder_->finish(0, 1);
  EXPECT_EQ(out.samples.size(), 2u);
  EXPECT_EQ(out.locations.size(), 5u);  // 2 leaves, the kernel caller, 2 user frames
  ASSERT_EQ(out.functions.size(), 2u);
  std::set<std::string> names;
  for (const profile_function& function : out.functions) names.insert(text(out, function.name));
  EXPECT_EQ(names, (std::set<std::string>{"k_entry", "k_work"}));
  ASSERT_EQ(out.mappings.size(), 2u);
  // The program first (pprof's main binary), the kernel last.
  EXPECT_EQ(text(out, out.mappings[0].filename), "/nonexistent/app");
  EXPECT_EQ(text(out, out.mappings[1].filename), "[kernel.kallsyms]");
  EXPECT_FALSE(out.mappings[0].has_functions);  // no file: a server may symbolize it
  EXPECT_TRUE(out.mappings[1].has_functions);
  EXPECT_EQ(out.strings.front(), "");
  EXPECT_EQ(std::set<std::string>(out.strings.begin(), out.strings.end()).size(),
            out.strings.size());
  for (std::size_t i = 0; i < out.locations.size(); ++i) EXPECT_EQ(out.locations[i].id, i + 1);
}

TEST_F(ProfileBuilder, CallersAreAtTheirReturnAddressMinusOneLeavesOfEachContextExact) {
  builder_->add(sample(100, 100, 1000, 0, PERF_RECORD_MISC_KERNEL,
                       {kernel_ctx, kernel_start + 0x110, kernel_start + 0x20, user_ctx,
                        user_start + 0x10, user_start + 0x200}));
  profile out = builder_->finish(0, 1);
  ASSERT_EQ(out.samples.size(), 1u);
  std::vector<std::uint64_t> addresses;
  for (std::uint64_t id : out.samples[0].location_ids)
    addresses.push_back(out.locations.at(id - 1).address);
  EXPECT_EQ(addresses, (std::vector<std::uint64_t>{kernel_start + 0x110, kernel_start + 0x1f,
                                                   user_start + 0x10, user_start + 0x1ff}));
}

TEST_F(ProfileBuilder, FinishStartsANewWindowAndKeepsTheTables) {
  builder_->add(sample(100, 100, 1000, 0, PERF_RECORD_MISC_USER, {user_ctx, user_start}));
  EXPECT_EQ(builder_->samples(), 1u);
  EXPECT_EQ(builder_->first_time(), 1000u);
  profile first = builder_->finish(0, 1);
  EXPECT_EQ(builder_->samples(), 0u);
  profile empty = builder_->finish(1, 2);
  EXPECT_TRUE(empty.samples.empty());
  EXPECT_TRUE(empty.locations.empty()) << "a window carries only the locations it samples";
  EXPECT_TRUE(empty.functions.empty());
  builder_->add(sample(100, 100, 3000, 0, PERF_RECORD_MISC_USER, {user_ctx, user_start}));
  profile second = builder_->finish(2, 3);
  ASSERT_EQ(second.samples.size(), 1u);
  EXPECT_EQ(second.samples[0].location_ids, first.samples[0].location_ids);
  ASSERT_EQ(second.locations.size(), first.locations.size());
  EXPECT_EQ(second.locations[0].address, first.locations[0].address);
}

TEST_F(ProfileBuilder, FoldedStacksAreRootFirstWithCommAndCounts) {
  for (int i = 0; i < 2; ++i)
    builder_->add(sample(
        100, 100, 1000, 0, PERF_RECORD_MISC_KERNEL,
        {kernel_ctx, kernel_start + 0x110, kernel_start + 0x20, user_ctx, user_start + 0x10}));
  builder_->add(
      sample(100, 101, 1000, 1, PERF_RECORD_MISC_KERNEL, {kernel_ctx, kernel_start + 0x110}));
  EXPECT_EQ(folded_text(builder_->finish(0, 1)),
            "app;[unknown];k_entry;k_work 2\n"
            "worker;k_work 1\n");
}

TEST(ProfileBuilderEvents, TheSideBandDummyEventGetsNoSampleTypes) {
  std::vector<perf_data::event_entry> events{cpu_clock_event(), cpu_clock_event()};
  events[0].attr.config = PERF_COUNT_SW_DUMMY;
  events[0].name = "dummy:u";
  profile_builder builder(events, {});
  profile out = builder.finish(0, 1);
  ASSERT_EQ(out.sample_types.size(), 2u);
  EXPECT_EQ(out.strings.at(static_cast<std::size_t>(out.sample_types[0].type)),
            "cpu-clock_samples");
  EXPECT_EQ(out.strings.at(static_cast<std::size_t>(out.default_sample_type)), "cpu-clock");
}

#ifndef AREC_TEST_NO_ALLOCATION_COUNTING
TEST_F(ProfileBuilder, AllocatesNothingPerSampleOnceItsTablesAreWarm) {
  std::vector<std::byte> record = sample(100, 100, 1000, 0, PERF_RECORD_MISC_KERNEL,
                                         {kernel_ctx, kernel_start + 0x110, kernel_start + 0x20,
                                          user_ctx, user_start + 0x10, user_start + 0x200});
  ASSERT_TRUE(test::counting_works());
  builder_->add(record);  // warms the thread, locations, strings and the stack's entry
  std::uint64_t before = test::allocations();
  for (int i = 0; i < 1000; ++i) builder_->add(record);
  EXPECT_EQ(test::allocations() - before, 0u);
  EXPECT_EQ(builder_->finish(0, 1).samples.at(0).values.at(0), 1001);
}
#endif

// JIT code and containers come from what the recording captured per process. Within one file,
// two entries for one pid are two processes that had it in turn: that pid gets no name and no
// container rather than the other process's.
class ProfileBuilderCaptured : public ProfileBuilder {
 protected:
  static constexpr std::uint64_t jit_start = 0x7f0000000000;
  void SetUp() override {
    ProfileBuilder::SetUp();
    builder_->add(mmap2(100, jit_start, 0x10000, jit_start, "//anon"));
  }
  // The leaf function of the window's only sample at `address` in pid 100, "" when unnamed.
  std::string leaf_at(std::uint64_t address, std::string* container = nullptr) {
    builder_->add(sample(100, 100, 1000, 0, PERF_RECORD_MISC_USER, {user_ctx, address}));
    profile out = builder_->finish(0, 1);
    EXPECT_EQ(out.samples.size(), 1u);
    if (out.samples.empty()) return "?";
    if (container) {
      for (const sample_label& label : out.samples[0].labels)
        if (text(out, label.key) == "container_id") *container = text(out, label.str);
    }
    const profile_location& location = out.locations.at(out.samples[0].location_ids[0] - 1);
    if (location.function_id == 0) return "";
    return text(out, out.functions.at(location.function_id - 1).name);
  }
};

TEST_F(ProfileBuilderCaptured, AProcesssCapturedMapAndContainerNameItsSamples) {
  builder_->add_recorded_perf_maps({{100, "7f0000000000 100 jsHot\n"}});
  builder_->add_recorded_containers({{100, std::string(64, 'c')}});
  std::string container;
  EXPECT_EQ(leaf_at(jit_start + 0x10, &container), "jsHot");
  EXPECT_EQ(container, std::string(64, 'c'));
}

TEST_F(ProfileBuilderCaptured, APidTwoProcessesHadInOneFileGetsNeitherNameNorContainer) {
  builder_->add_recorded_perf_maps(
      {{100, "7f0000000000 100 jsFirst\n"}, {100, "7f0000000000 100 jsSecond\n"}});
  builder_->add_recorded_containers({{100, std::string(64, 'a')}, {100, std::string(64, 'b')}});
  std::string container;
  EXPECT_EQ(leaf_at(jit_start + 0x10, &container), "");
  EXPECT_EQ(container, "");
}

// A runtime buffers its perf map: code may run in one window before its line reaches the file.
// The next window's map names it, though the location was made (unnamed) before.
TEST_F(ProfileBuilderCaptured, CodeTheMapNamedOnlyLaterIsNamedFromThen) {
  builder_->add_recorded_perf_maps({{100, "7f0000000000 100 jsOld\n"}});
  EXPECT_EQ(leaf_at(jit_start + 0x2010), "");
  builder_->add_recorded_perf_maps({{100, "7f0000000000 100 jsOld\n7f0000002000 100 jsLate\n"}});
  EXPECT_EQ(leaf_at(jit_start + 0x2010), "jsLate");
}

TEST_F(ProfileBuilderCaptured, ALaterFilesMapOfTheSameProcessReplacesTheEarlierOne) {
  builder_->add_recorded_perf_maps({{100, "7f0000000000 100 jsHot\n"}});
  builder_->add_recorded_perf_maps({{100, "7f0000000000 100 jsHot\n7f0000001000 100 jsNew\n"}});
  EXPECT_EQ(leaf_at(jit_start + 0x1010), "jsNew");
}

// Pid 100's jitdump `dump` as a file captured it, its times CLOCK_MONOTONIC and the samples'
// clock 10000 ns ahead.
class ProfileBuilderJitdump : public ProfileBuilderCaptured {
 protected:
  void add_jitdump(const std::string& dump) {
    std::optional<symbols::jit_code_timeline> code =
        symbols::jitdump_timeline(std::as_bytes(std::span{dump}), {{1000, 11000}, {2000, 12000}});
    ASSERT_TRUE(code);
    jit_code_by_time timed;
    timed.processes.push_back({100, std::move(*code)});
    builder_->add_recorded_jit_code(std::move(timed));
  }
};

// One JIT address, two functions over time (a jitdump's two CODE_LOADs there): each sample is
// named by the one there at its time, one taken before either by none (not the later one's),
// and the perf map's name is used only where the dump had no code then.
TEST_F(ProfileBuilderJitdump, AJitdumpNamesEachSampleByTheCodeThereAtItsTime) {
  builder_->add_recorded_perf_maps({{100, "7f0000000000 100 fromTheMap\n"}});
  std::string dump = test::jitdump_header() +
                     test::jitdump_code_load("JS:*first", 16, false, jit_start, 1100) +
                     test::jitdump_code_load("JS:*second", 16, false, jit_start, 1500);
  add_jitdump(dump);
  auto leaf_at_time = [&](std::uint64_t time) {
    builder_->add(sample(100, 100, time, 0, PERF_RECORD_MISC_USER, {user_ctx, jit_start + 4}));
    profile out = builder_->finish(0, 1);
    const profile_location& location = out.locations.at(out.samples.at(0).location_ids[0] - 1);
    return location.function_id == 0 ? std::string{}
                                     : text(out, out.functions.at(location.function_id - 1).name);
  };
  EXPECT_EQ(leaf_at_time(11050), "fromTheMap");
  EXPECT_EQ(leaf_at_time(11200), "JS:*first");
  EXPECT_EQ(leaf_at_time(11600), "JS:*second");
  EXPECT_EQ(leaf_at_time(11300), "JS:*first") << "its location is kept apart from the second's";
  EXPECT_TRUE(builder_->take_perf_map_warnings().empty());
}

// A runtime buffers its dump: code may run in one window before its CODE_LOAD reaches the file.
// The next window's dump names the location if one function was there at all its samples'
// times; a location whose samples straddle a reuse stays unnamed.
TEST_F(ProfileBuilderJitdump, ALaterDumpNamesEarlierSamplesOnlyIfOneFunctionWasThereAllThrough) {
  auto add_at = [&](std::uint64_t address, std::uint64_t time) {
    builder_->add(sample(100, 100, time, 0, PERF_RECORD_MISC_USER, {user_ctx, address}));
  };
  add_at(jit_start + 4, 11200);
  add_at(jit_start + 4, 11300);
  add_at(jit_start + 0x104, 11200);
  add_at(jit_start + 0x104, 11600);
  builder_->finish(0, 1);
  std::string dump = test::jitdump_header() +
                     test::jitdump_code_load("JS:*first", 16, false, jit_start, 1100) +
                     test::jitdump_code_load("JS:*old", 16, false, jit_start + 0x100, 1100) +
                     test::jitdump_code_load("JS:*new", 16, false, jit_start + 0x100, 1500);
  add_jitdump(dump);
  add_at(jit_start + 4, 11250);      // the renamed location, found by its name now
  add_at(jit_start + 0x104, 11050);  // before any code there: the straddling location
  profile out = builder_->finish(0, 1);
  auto name_of = [&](std::uint64_t address) {
    for (const profile_location& location : out.locations)
      if (location.address == address)
        return location.function_id == 0
                   ? std::string{}
                   : text(out, out.functions.at(location.function_id - 1).name);
    return std::string{"(none)"};
  };
  EXPECT_EQ(name_of(jit_start + 4), "JS:*first");
  EXPECT_EQ(name_of(jit_start + 0x104), "") << "JS:*old, then JS:*new: neither all through";
  EXPECT_EQ(out.samples.size(), 2u);
}

TEST_F(ProfileBuilderJitdump, JitdumpsThatCannotBePlacedInTimeAreSaid) {
  jit_code_by_time timed;
  timed.untimed_dumps = 2;
  builder_->add_recorded_jit_code(timed);
  builder_->add_recorded_jit_code(timed);  // the next file lists the same dumps: said once
  std::vector<std::string> warnings = builder_->take_perf_map_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("2 captured jitdump(s) cannot be placed"), std::string::npos);
}

// `arec --push` runs for weeks: each window's feature lists the live processes' maps, and the
// maps of those it no longer lists (gone) are forgotten, not held for the rest of the run.
TEST_F(ProfileBuilderCaptured, ALiveRecordingForgetsTheMapsOfProcessesItNoLongerLists) {
  builder_->add_recorded_perf_maps({{100, "7f0000000000 100 jsHot\n7f0000001000 100 jsOther\n"}});
  const pid_t listed[] = {100};
  builder_->forget_perf_maps_but(listed);
  EXPECT_EQ(leaf_at(jit_start + 0x10), "jsHot") << "still listed: kept";
  builder_->forget_perf_maps_but({});
  EXPECT_EQ(leaf_at(jit_start + 0x1010), "") << "no longer listed: forgotten";
}

}  // namespace
}  // namespace arec::exporting

namespace arec::exporting {
namespace {

// arec report's timelines: with time_bucket_ns, one stack is told apart by when it ran.
TEST(ProfileBuilderTimeBuckets, SamplesOfOneStackSplitByTheirBucketAndCarryIt) {
  test::temp_dir dir;
  builder_settings settings;
  settings.symbols.build_id_dir = dir.path();
  settings.perf_map_dir = dir.path();
  settings.time_bucket_ns = 100;
  std::vector<perf_data::event_entry> events{test_records::cpu_clock_event()};
  profile_builder builder(events, settings);
  builder.add(test_records::mmap2(100, user_start, 0x10000, 0, "/nonexistent/app"));
  for (std::uint64_t time : {1000, 1050, 1150, 1420})  // buckets 0, 0, 1, 4
    builder.add(test_records::sample(100, 100, time, 0, PERF_RECORD_MISC_USER,
                                     {user_ctx, user_start + 0x10}));
  profile out = builder.finish(0, 1);
  std::map<std::int64_t, std::int64_t> counts;  // bucket -> samples
  for (const profile_sample& sample : out.samples)
    for (const sample_label& label : sample.labels)
      if (out.strings[static_cast<std::size_t>(label.key)] == "time_bucket")
        counts[label.num] += sample.values[0];
  EXPECT_EQ(counts, (std::map<std::int64_t, std::int64_t>{{0, 2}, {1, 1}, {4, 1}}));
}

TEST_F(ProfileBuilder, WithoutTimeBucketsNoSampleCarriesOne) {
  builder_->add(sample(100, 100, 1000, 0, PERF_RECORD_MISC_USER, {user_ctx, user_start}));
  builder_->add(sample(100, 100, 900000, 0, PERF_RECORD_MISC_USER, {user_ctx, user_start}));
  profile out = builder_->finish(0, 1);
  EXPECT_EQ(out.samples.size(), 1u);
  EXPECT_EQ(std::count(out.strings.begin(), out.strings.end(), "time_bucket"), 0);
}

}  // namespace
}  // namespace arec::exporting
