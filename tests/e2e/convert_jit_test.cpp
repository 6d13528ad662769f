// JIT code of a container's process, named in perf report of the converted file: a real `node
// --perf-basic-prof` in its own pid and mount namespace writes its perf map into a /tmp that
// only it sees, so perf never finds the map and names none of its JavaScript frames. arec
// captures the map while recording; `arec convert` makes it an ELF in the build-id cache and
// maps node's JIT code to it, and then perf report and perf script name jsHotFunction.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "env_command.hpp"
#include "folded_stacks.hpp"
#include "hot_javascript.hpp"
#include "perf_report.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

class ConvertJitMaps : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
    test::run_command({"mkdir", "-p", home_});
  }
  // `command` with the test's own HOME, so the build-id cache is $HOME/.debug inside the
  // test's directory for arec and perf alike (perf 6.1 reads no PERF_BUILDID_DIR).
  std::vector<std::string> at_home(const std::vector<std::string>& command) const {
    return env_command({"-u", "PERF_BUILDID_DIR", "HOME=" + home_}, command);
  }
  // The share of node's samples whose own function (perf report, self) is jsHotFunction.
  double hot_share(const std::string& data) const {
    test::command_result run =
        test::run_command(at_home({"/usr/bin/perf", "report", "--stdio", "-i", data, "--comms",
                                   "node", "--sort", "dso,sym", "--no-children", "-g", "none"}),
                          120s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    double hot = 0;
    for (const report_row& row : parse_perf_report(run.out))
      if (row.symbol.find("jsHotFunction") != std::string::npos) hot += row.percent;
    return hot / 100;
  }

  test::temp_dir dir_;
  const std::string home_ = dir_.file("home");
};

TEST_F(ConvertJitMaps, NodeInAContainerIsNamedByPerfReportOfTheConvertedFile) {
  const std::string data = dir_.file("node.data");
  const std::string converted = dir_.file("converted.data");
  // The tmpfs is mounted in node's own mount namespace: its map never reaches the host's /tmp.
  // It hides the test's directory too (under $TMPDIR): the script comes as an argument. It runs
  // for seconds: past arec's first drain, where the map is captured. --logfile: no
  // isolate-*-v8.log in the working directory.
  test::command_result recorded = test::run_command(
      at_home(
          {arec_binary(), "-q", "-g", "-e", "cpu-clock", "-o", data, "--", "unshare", "-pmf",
           "--mount-proc", "sh", "-c",
           "mount -t tmpfs tmpfs /tmp && exec node --perf-basic-prof --logfile=/dev/null -e \"$1\"",
           "sh", hot_javascript("6e8")}),
      180s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  EXPECT_LT(hot_share(data), 0.01) << "perf cannot see the container's perf map";

  test::command_result conversion = test::run_command(
      at_home({arec_binary(), "convert", "-q", "-i", data, "-o", converted}), 120s);
  ASSERT_EQ(conversion.exit_code, 0) << conversion.describe();
  EXPECT_EQ(conversion.err, "");
  EXPECT_GT(hot_share(converted), 0.5) << "most of node's samples are in jsHotFunction";

  test::command_result script =
      test::run_command(at_home({"/usr/bin/perf", "script", "-i", converted, "--comms", "node",
                                 "-F", "ip,sym", "-G"}),
                        120s);
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  std::istringstream lines{script.out};
  std::size_t samples = 0, hot = 0;
  for (std::string line; std::getline(lines, line); ++samples)
    if (line.find("jsHotFunction") != std::string::npos) ++hot;
  EXPECT_GT(hot * 2, samples) << hot << " of " << samples << " samples named jsHotFunction";

  // arec export of the converted file names them too, now through the ELF in the cache.
  test::command_result exported = test::run_command(
      at_home({arec_binary(), "export", "-q", "--format=folded", "-i", converted, "-o", "-"}),
      120s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_GT(leaf_share(exported.out, "jsHotFunction"), 0.5) << exported.out.substr(0, 3000);
}

}  // namespace
}  // namespace arec::e2e
