// JIT code: a real `node --perf-basic-prof` spends its time in one JavaScript function, whose
// code V8 generates into anonymous memory and names in /tmp/perf-PID.map. `arec export` names
// those frames from that map, as perf report does (they used to be all unnamed).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "folded_stacks.hpp"
#include "hot_javascript.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

TEST(ExportJit, NodeFramesAreNamedFromItsPerfMap) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  std::ofstream{dir.file("hot.js")} << hot_javascript("3e8");
  const std::string data = dir.file("node.data");
  test::command_result recorded = test::run_command(
      recorder::from_environment().command({"-q", "-g", "-e", "cpu-clock", "-o", data, "--",
                                            "node", "--perf-basic-prof", "--logfile=/dev/null",
                                            dir.file("hot.js")}),
      120s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  std::string pid = recorded.out.substr(0, recorded.out.find('\n'));
  ASSERT_FALSE(pid.empty()) << recorded.describe();
  // node leaves its map behind: the test removes it, whatever happens below (--logfile above:
  // and no isolate-*-v8.log in the working directory).
  struct remove_map {
    std::string path;
    ~remove_map() { ::unlink(path.c_str()); }
  } cleanup{"/tmp/perf-" + pid + ".map"};
  test::command_result exported = test::run_command(
      {AREC_BINARY, "export", "-q", "--format=folded", "-i", data, "-o", "-"}, 120s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  leaf_samples samples = samples_with_leaf(exported.out, "jsHotFunction");
  ASSERT_GT(samples.total, 0) << exported.describe();
  EXPECT_GT(samples.named / samples.total, 0.5)
      << samples.named << " of " << samples.total << " samples in jsHotFunction";
}

}  // namespace
}  // namespace arec::e2e
