// exporter: whole exports of hand-made recordings: damaged records are left out and said so,
// damaged times do not overflow.
#include "export/exporter.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "convert/records.hpp"
#include "perf_data/jitdumps_feature.hpp"
#include "support/jitdump_bytes.hpp"
#include "support/side_band_records.hpp"
#include "support/temp_dir.hpp"

namespace arec::exporting {
namespace {

using namespace convert::test_records;

constexpr std::uint64_t top_bit = std::uint64_t{1} << 63;
constexpr std::uint64_t pid_tid = 0x0000000700000007;

// Exports dir's perf.data to its out.folded.
export_report export_folded(const test::temp_dir& dir) {
  export_options options;
  options.inputs = {dir.file("perf.data")};
  options.output = dir.file("out.folded");
  options.format = export_format::folded;
  return export_recording(options);
}

// The second sample's time is damaged (2^63 after the first): the wall-clock window of the
// profile overflowed (UBSan aborts on it in the ASan build).
TEST(Exporter, ExportsASampleWithACorruptTimeWithoutOverflow) {
  test::temp_dir dir;
  std::vector<perf_data::event_entry> events{
      event(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD, {})};
  write_recording(dir.file("perf.data"), events,
                  {record(PERF_RECORD_SAMPLE, 0x1000, pid_tid, 1, 1),
                   record(PERF_RECORD_SAMPLE, 0x1000, pid_tid, top_bit + 1, 1)});
  export_report report = export_folded(dir);
  EXPECT_EQ(report.samples, 2u);
}

// Records perf could not read are not exported either, and the report says how many and why.
TEST(Exporter, WarnsOfRecordsItLeavesOut) {
  test::temp_dir dir;
  std::vector<perf_data::event_entry> events{event(sample_type, {1}), event(sample_type, {2})};
  write_recording(dir.file("perf.data"), events,
                  {record(PERF_RECORD_SAMPLE, 1, 0x1000, pid_tid, 100, 0, 1),
                   record(PERF_RECORD_SAMPLE, 99, 0x1000, pid_tid, 110, 0, 1)});
  export_report report = export_folded(dir);
  EXPECT_EQ(report.samples, 1u);
  EXPECT_EQ(report.warnings,
            std::vector<std::string>{"dropped 1 records perf 6.1 cannot read either: record whose "
                                     "sample id no attr owns (the first at " +
                                     dir.file("perf.data") + ": offset 464)"});
}

// A runtime loaded two functions at one address in turn (its jitdump's two CODE_LOADs): each
// sample there is named by the one loaded before it, the sample taken before both by neither.
// The dump's times are CLOCK_MONOTONIC; the samples' clock runs 10000 ns ahead (the pairs).
TEST(Exporter, SamplesAtOneJitAddressAreNamedByTheCodeThereAtTheirTimes) {
  namespace side_band = exporting::test_records;
  constexpr std::uint64_t jit = 0x7f0000000000;
  constexpr std::uint64_t user = PERF_CONTEXT_USER;
  test::temp_dir dir;
  std::vector<perf_data::event_entry> events{side_band::cpu_clock_event()};
  std::string dump = test::jitdump_header() +
                     test::jitdump_code_load("JS:*first", 16, false, jit, 1100) +
                     test::jitdump_code_load("JS:*second", 16, false, jit, 1500);
  std::vector<perf_data::stored_jitdump> dumps{{perf_data::store_perf_map(7, dump), 0}};
  perf_data::feature_set features;
  features.set(perf_data::feature_arec_jitdumps,
               perf_data::jitdumps_payload({{1000, 11000}, {2000, 12000}}, dumps));
  write_recording(dir.file("perf.data"), events,
                  {side_band::comm(7, 7, "node"), side_band::mmap2(7, jit, 0x10000, 0, "//anon"),
                   side_band::sample(7, 7, 11050, 0, PERF_RECORD_MISC_USER, {user, jit + 4}),
                   side_band::sample(7, 7, 11200, 0, PERF_RECORD_MISC_USER, {user, jit + 4}),
                   side_band::sample(7, 7, 11600, 0, PERF_RECORD_MISC_USER, {user, jit + 4}),
                   side_band::sample(7, 7, 11700, 0, PERF_RECORD_MISC_USER, {user, jit + 4})},
                  features);
  export_report report = export_folded(dir);
  EXPECT_EQ(report.samples, 4u);
  std::ifstream folded(dir.file("out.folded"));
  std::set<std::string> lines;
  for (std::string line; std::getline(folded, line);) lines.insert(line);
  EXPECT_TRUE(lines.contains("node;JS:*first 1")) << testing::PrintToString(lines);
  EXPECT_TRUE(lines.contains("node;JS:*second 2")) << testing::PrintToString(lines);
  EXPECT_EQ(lines.size(), 3u) << "the first sample unnamed: " << testing::PrintToString(lines);
}

}  // namespace
}  // namespace arec::exporting
