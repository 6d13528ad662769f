// perf_map: each process's JIT symbols, from the map captured for it or its file in a directory.
#include "export/perf_map.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace arec::exporting {
namespace {

TEST(PerfMap, ReadsEachProcesssMapFromItsDirectory) {
  test::temp_dir dir;
  std::ofstream{dir.file("perf-42.map")} << "1000 100 jit_function\n";
  perf_maps maps{dir.path()};
  EXPECT_EQ(maps.function_at(42, 0x1010), "jit_function");
  EXPECT_EQ(maps.function_at(43, 0x1010), "") << "no map for that process";
  perf_maps none{""};
  EXPECT_EQ(none.function_at(42, 0x1010), "");
}

// The map the recording captured is the process's, not whatever the host's /tmp holds under
// the same pid now (a container's pid, or a pid reused since); a later capture replaces it.
TEST(PerfMap, ACapturedMapComesBeforeTheDirectorysAndALaterOneReplacesIt) {
  test::temp_dir dir;
  std::ofstream{dir.file("perf-42.map")} << "1000 100 host_function\n";
  perf_maps maps{dir.path()};
  maps.use_captured(42, "1000 100 captured_function\n");
  EXPECT_EQ(maps.function_at(42, 0x1010), "captured_function");
  maps.use_captured(42, "1000 100 captured_function\n2000 10 compiled_later\n");
  EXPECT_EQ(maps.function_at(42, 0x2004), "compiled_later");
}

}  // namespace
}  // namespace arec::exporting
