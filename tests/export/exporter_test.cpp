// exporter: whole exports of hand-made recordings: damaged records are left out and said so,
// damaged times do not overflow.
#include "export/exporter.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "convert/records.hpp"
#include "support/temp_dir.hpp"

namespace arec::exporting {
namespace {

using namespace convert::test_records;

constexpr std::uint64_t top_bit = std::uint64_t{1} << 63;
constexpr std::uint64_t pid_tid = 0x0000000700000007;

// The second sample's time is damaged (2^63 after the first): the wall-clock window of the
// profile overflowed (UBSan aborts on it in the ASan build).
TEST(Exporter, ExportsASampleWithACorruptTimeWithoutOverflow) {
  test::temp_dir dir;
  std::vector<perf_data::event_entry> events{
      event(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD, {})};
  write_recording(dir.file("perf.data"), events,
                  {record(PERF_RECORD_SAMPLE, 0x1000, pid_tid, 1, 1),
                   record(PERF_RECORD_SAMPLE, 0x1000, pid_tid, top_bit + 1, 1)});
  export_options options;
  options.inputs = {dir.file("perf.data")};
  options.output = dir.file("out.folded");
  options.format = export_format::folded;
  export_report report = export_recording(options);
  EXPECT_EQ(report.samples, 2u);
}

// Records perf could not read are not exported either, and the report says how many and why.
TEST(Exporter, WarnsOfRecordsItLeavesOut) {
  test::temp_dir dir;
  std::vector<perf_data::event_entry> events{event(sample_type, {1}), event(sample_type, {2})};
  write_recording(dir.file("perf.data"), events,
                  {record(PERF_RECORD_SAMPLE, 1, 0x1000, pid_tid, 100, 0, 1),
                   record(PERF_RECORD_SAMPLE, 99, 0x1000, pid_tid, 110, 0, 1)});
  export_options options;
  options.inputs = {dir.file("perf.data")};
  options.output = dir.file("out.folded");
  options.format = export_format::folded;
  export_report report = export_recording(options);
  EXPECT_EQ(report.samples, 1u);
  EXPECT_EQ(report.warnings,
            std::vector<std::string>{"dropped 1 records perf 6.1 cannot read either: record whose "
                                     "sample id no attr owns (the first at " +
                                     dir.file("perf.data") + ": offset 464)"});
}

}  // namespace
}  // namespace arec::exporting
