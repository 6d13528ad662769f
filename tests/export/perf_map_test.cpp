// perf_map: each process's JIT symbols, from the map captured for it or its file in a directory
// (read by perf report's rule, bounded, forgotten window by window in a live recording).
#include "export/perf_map.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

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
  EXPECT_TRUE(maps.take_warnings().empty());
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
  maps.use_captured(42, "");
  EXPECT_EQ(maps.function_at(42, 0x1010), "") << "a refused capture: the directory is not read";
}

// perf report's rule for /tmp/perf-PID.map: owned by the user running it or root (root's
// `arec --push` used to read a map another user planted for a root process), and, as for a
// captured map, writable by no one else.
TEST(PerfMap, AMapInTheDirectoryThatAnotherUserOwnsOrOthersMayWriteNamesNothingAndIsSaid) {
  test::temp_dir dir;
  std::ofstream{dir.file("perf-42.map")} << "1000 100 planted\n";
  ASSERT_EQ(::chown(dir.file("perf-42.map").c_str(), 4242, 4242), 0);
  std::ofstream{dir.file("perf-43.map")} << "1000 100 writable\n";
  ASSERT_EQ(::chmod(dir.file("perf-43.map").c_str(), 0666), 0);
  perf_maps maps{dir.path()};
  EXPECT_EQ(maps.function_at(42, 0x1010), "");
  EXPECT_EQ(maps.function_at(43, 0x1010), "");
  std::vector<std::string> said = maps.take_warnings();
  ASSERT_EQ(said.size(), 2u);
  EXPECT_EQ(said[0], dir.file("perf-42.map") +
                         " is owned by uid 4242, not by the user running "
                         "arec or root (uid " +
                         std::to_string(::geteuid()) + "): it names no frame of process 42");
  EXPECT_NE(said[1].find("may be written by group or others (mode 0666)"), std::string::npos);
}

// One user's map of millions of tiny lines used to take root's export or push to GBs.
TEST(PerfMap, AtMostTheBoundsOfSymbolsAreHeldAndWhatIsLeftOutIsCountedAndSaidOnce) {
  perf_maps maps{"", 3};
  maps.use_captured(1, "1000 10 a\n1010 10 b\n");
  maps.use_captured(2, "2000 10 c\n2010 10 d\n");
  EXPECT_EQ(maps.function_at(1, 0x1004), "a");
  EXPECT_EQ(maps.function_at(2, 0x2004), "") << "no room left for its first line";
  EXPECT_EQ(maps.function_at(2, 0x2014), "d") << "the last ones written are kept";
  EXPECT_EQ(maps.left_out(), 1u);
  maps.use_captured(1, "1000 10 a\n");  // its room is given back
  maps.use_captured(2, "2000 10 c\n2010 10 d\n");
  EXPECT_EQ(maps.function_at(2, 0x2004), "c");
  std::vector<std::string> said = maps.take_warnings();
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("the perf map of process 2: 1 of its lines are not read"),
            std::string::npos)
      << said[0];
}

// `arec --push` runs for weeks: each window forgets the maps of processes gone since, and the
// maps read from the directory (read again, grown, when a new frame asks).
TEST(PerfMap, ForgetAllButKeepsOnlyTheListedCapturedMaps) {
  test::temp_dir dir;
  std::ofstream{dir.file("perf-42.map")} << "1000 100 first\n";
  perf_maps maps{dir.path()};
  maps.use_captured(7, "1000 100 seven\n");
  maps.use_captured(8, "1000 100 eight\n");
  EXPECT_EQ(maps.function_at(42, 0x1010), "first");
  std::ofstream{dir.file("perf-42.map")} << "1000 100 grown\n";
  const pid_t live[] = {7};
  maps.forget_all_but(live);
  EXPECT_EQ(maps.function_at(7, 0x1010), "seven");
  EXPECT_EQ(maps.function_at(8, 0x1010), "") << "a gone process's map is forgotten";
  EXPECT_EQ(maps.function_at(42, 0x1010), "grown") << "read again";
}

}  // namespace
}  // namespace arec::exporting
