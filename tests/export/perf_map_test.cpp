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

}  // namespace
}  // namespace arec::exporting
