// pprof_writer: the profile as profile.proto, read back with the generated code.
#include "export/pprof_writer.hpp"

#include <gtest/gtest.h>

#include "export/profile.pb.h"

namespace arec::exporting {
namespace {

// A comm set to "\xff" with prctl (no privilege needed), a path or a symbol that is not UTF-8:
// protobuf's parsers (Go's servers, and the generated code here) refuse the whole profile for one
// such string, so the string table holds U+FFFD in place of the bytes and the profile parses.
TEST(PprofWriter, StringsThatAreNotUtf8ArriveRepairedAndTheProfileParses) {
  profile p;
  p.strings = {"", "cpu-clock_samples", "count", "comm", "\xff", "hot\xc0", "/usr/bin/\xe2\x82"};
  p.sample_types = {{1, 2}};
  p.period_type = {1, 2};
  p.mappings = {{.id = 1, .memory_start = 0x1000, .memory_limit = 0x2000, .filename = 6}};
  p.functions = {{1, 5, 6}};
  p.locations = {{1, 1, 0x1100, 1}};
  p.samples = {{{1}, {3}, {{3, 4, 0}}}};
  std::vector<std::byte> bytes = pprof_message(p);
  perftools::profiles::Profile decoded;
  ASSERT_TRUE(decoded.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  ASSERT_EQ(decoded.string_table_size(), 7);
  EXPECT_EQ(decoded.string_table(4), "\xef\xbf\xbd");
  EXPECT_EQ(decoded.string_table(5), "hot\xef\xbf\xbd");
  EXPECT_EQ(decoded.string_table(6), "/usr/bin/\xef\xbf\xbd");
  EXPECT_EQ(decoded.string_table(1), "cpu-clock_samples");
}

// A JIT frame's source line (its dump's DEBUG_INFO) is its function's Line.line; its function's
// file the source file.
TEST(PprofWriter, ALocationsLineIsItsFunctionsLine) {
  profile p;
  p.strings = {"", "cpu-clock_samples", "count", "JS:*hot", "/srv/app.js"};
  p.sample_types = {{1, 2}};
  p.period_type = {1, 2};
  p.functions = {{1, 3, 4}};
  p.locations = {{.id = 1, .address = 0x1100, .function_id = 1, .line = 42},
                 {.id = 2, .address = 0x1200, .function_id = 1}};
  p.samples = {{{1}, {3}, {}}, {{2}, {1}, {}}};
  std::vector<std::byte> bytes = pprof_message(p);
  perftools::profiles::Profile decoded;
  ASSERT_TRUE(decoded.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  ASSERT_EQ(decoded.location_size(), 2);
  ASSERT_EQ(decoded.location(0).line_size(), 1);
  EXPECT_EQ(decoded.location(0).line(0).line(), 42);
  EXPECT_EQ(decoded.location(1).line(0).line(), 0) << "unknown: not written";
  EXPECT_EQ(decoded.string_table(decoded.function(0).filename()), "/srv/app.js");
}

}  // namespace
}  // namespace arec::exporting
