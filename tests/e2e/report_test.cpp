// `arec report` of real recordings, opened in headless Chromium (Debian's chromium) by
// tests/report/page/browser/check_page.cjs: the page names the hot function with the share
// `arec export` gives it (go tool pprof -top), logs no error, requests nothing, draws a picture,
// and answers zoom, search, reset, the thread selector, the views and its URL fragment; a comm
// holding markup stays text.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>

#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

// What check_page.cjs saw of `page` (one line of JSON), or a failure when Chromium is missing:
// scripts/install-deps.sh installs it, and CI must run these tests.
test::command_result check_page(const std::string& page, const std::string& hot,
                                const std::string& waiting = {}) {
  return test::run_command({"node",
                            std::string(AREC_TEST_SOURCE_DIR) +
                                "/report/page/browser/check_page.cjs",
                            page, hot, waiting},
                           std::chrono::seconds(240));
}

bool has_chromium() {
  return test::run_command({"sh", "-c", "command -v chromium"}).exit_code == 0;
}

// The self share the page's summary gives `name` ("78.50%  78.58%  name" in the dumped DOM's
// text, its line end escaped in JSON), or -1.
double summary_self_share(const std::string& seen, const std::string& name) {
  std::smatch match;
  if (!std::regex_search(seen, match, std::regex("([0-9.]+)%\\s+[0-9.]+%\\s+" + name + "\\\\n")))
    return -1;
  return std::stod(match[1]);
}

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
    if (!has_chromium()) GTEST_SKIP() << "no chromium: run scripts/install-deps.sh";
  }
  test::temp_dir dir_;
};

TEST_F(Report, ChromiumShowsTheHotFunctionWithExportsShareAndAnswersInput) {
  const std::string data = dir_.file("rec.data");
  test::command_result recorded = test::run_command(recorder::from_environment().command(
      {"-o", data, "-e", "cpu-clock", "-F", "2000", "-g", "--", test_program("hot_pair"), "600"}));
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  test::command_result reported = test::run_command({arec_binary(), "report", "-i", data});
  ASSERT_EQ(reported.exit_code, 0) << reported.describe();
  EXPECT_NE(reported.err.find("written to " + data + ".html"), std::string::npos) << reported.err;

  ASSERT_EQ(test::run_command({arec_binary(), "export", "-q", "-i", data, "-o",
                               dir_.file("rec.pb.gz")})
                .exit_code,
            0);
  test::command_result top = test::run_command(
      {"go", "tool", "pprof", "-top", "-nodecount=1000", "-symbolize=none", dir_.file("rec.pb.gz")});
  ASSERT_EQ(top.exit_code, 0) << top.describe();
  double exported = pprof_top_shares(top.out).flat["hot_major"];
  ASSERT_GT(exported, 10.0) << top.out;

  test::command_result seen = check_page(data + ".html", "hot_major");
  ASSERT_EQ(seen.exit_code, 0) << seen.describe() << seen.out;
  const std::string& out = seen.out;
  EXPECT_NEAR(summary_self_share(out, "hot_major"), exported, 0.006) << out << top.out;
  EXPECT_NE(out.find(R"("errors":[])"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("done":true)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"(["resources",0])"), std::string::npos) << out;
  EXPECT_NE(out.find(R"(["located",true])"), std::string::npos) << out;
  // The thread's comm shares "hot_" with hot_major in the sorted names: it is whole.
  EXPECT_NE(out.find(R"x("hot_pair )x"), std::string::npos) << out;
  EXPECT_NE(out.find(R"(["zoomed","hot_major",true])"), std::string::npos) << out;
  // Zoomed in, hot_major fills the width: its centre is the canvas's.
  std::smatch centre;
  ASSERT_TRUE(std::regex_search(out, centre, std::regex(R"(\["zoomed-center",(-?\d+),(\d+)\])")));
  EXPECT_NEAR(std::stoi(centre[1]), std::stoi(centre[2]), 1) << out;
  EXPECT_NE(out.find(R"(["search","matched )"), std::string::npos) << out;
  EXPECT_NE(out.find(R"(["invalid-search",true,true])"), std::string::npos) << out;
  EXPECT_NE(out.find(R"(["reset",0,""])"), std::string::npos) << out;
  EXPECT_NE(out.find(R"(["fragment","tree","hot"])"), std::string::npos) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(\["bottomup",[1-9]\d*,true\])"))) << out;
  // A timeline per thread: a drag over a quarter of it weighs about a quarter of the buckets.
  std::smatch lane;
  ASSERT_TRUE(std::regex_search(out, lane, std::regex(R"(\["timeline",1,(\d+),true,true\])"))) << out;
  EXPECT_GE(std::stoi(lane[1]), 10) << out;
  EXPECT_LE(std::stoi(lane[1]), 40) << out;
  EXPECT_NE(out.find(R"(["timeline-cleared",true,true])"), std::string::npos) << out;
  // A host process: no container to choose.
  EXPECT_NE(out.find(R"(["containers-hidden",true])"), std::string::npos) << out;
  // Pictures, not blank pages: the canvas and the screenshot hold many colours.
  std::smatch colours;
  ASSERT_TRUE(std::regex_search(out, colours, std::regex(R"(\["colours",(\d+)\])")));
  EXPECT_GT(std::stoi(colours[1]), 10) << out;
  EXPECT_GT(json_number(out, "screenshotColours"), 10) << out;
}

TEST_F(Report, ACommHoldingMarkupStaysTextInTheThreadSelector) {
  const std::string data = dir_.file("named.data");
  const std::string comm = "</script><b>x";  // 13 of the 15 bytes a comm holds
  test::command_result recorded =
      test::run_command({arec_binary(), "-q", "-e", "cpu-clock", "-g", "-o", data, "--",
                         test_program("named_loop"), comm, "300"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  ASSERT_EQ(test::run_command({arec_binary(), "report", "-q", "-i", data}).exit_code, 0);
  test::command_result seen = check_page(data + ".html", "hot_function");
  ASSERT_EQ(seen.exit_code, 0) << seen.describe() << seen.out;
  EXPECT_NE(seen.out.find(R"x(","</script><b>x )x"), std::string::npos)
      << seen.out;
  EXPECT_NE(seen.out.find(R"(["markup-from-names",0])"), std::string::npos) << seen.out;
  EXPECT_NE(seen.out.find(R"("errors":[])"), std::string::npos) << seen.out;
}

TEST_F(Report, AnOffCpuRecordingShowsWaitingInItsOwnColourBesideCpuTime) {
  const std::string data = dir_.file("off.data");
  test::command_result recorded = test::run_command(
      {arec_binary(), "-q", "--off-cpu", "-g", "-e", "cpu-clock", "-o", data, "--",
       test_program("off_cpu_pair"), "50", "30", "4"},
      std::chrono::seconds(60));
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  ASSERT_EQ(test::run_command({arec_binary(), "report", "-q", "-i", data}).exit_code, 0);
  test::command_result seen = check_page(data + ".html", "main", "sleep_in_nanosleep");
  ASSERT_EQ(seen.exit_code, 0) << seen.describe() << seen.out;
  const std::string& out = seen.out;
  // Each event (--off-cpu also counts context switches), and CPU and off-CPU time together.
  EXPECT_NE(out.find(R"x(["events",["cpu-clock","offcpu-time (off-CPU)",)x"), std::string::npos)
      << out;
  EXPECT_NE(out.find(R"x(,"on-CPU + off-CPU (wall time)"]])x"), std::string::npos) << out;
  // With wall time, the sleeping function is drawn, violet (blue over red over green).
  std::smatch wall;
  ASSERT_TRUE(std::regex_search(out, wall, std::regex(R"(\["wall",-2,"[^"]+",\[(\d+),(\d+),(\d+)\]\])")))
      << out;
  int red = std::stoi(wall[1]), green = std::stoi(wall[2]), blue = std::stoi(wall[3]);
  EXPECT_GT(blue, red) << out;
  EXPECT_GT(red, green) << out;
  // off_cpu_pair forks a writer: two processes, and choosing one weighs its threads alone.
  EXPECT_NE(out.find(R"x(["processes",["all processes (2)",)x"), std::string::npos) << out;
  EXPECT_NE(out.find(R"(["process-filter",true,true])"), std::string::npos) << out;
  // CPU time alone hardly has it: it sleeps in a system call of its own.
  EXPECT_NE(out.find(R"(["on-cpu-only",0,)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("errors":[])"), std::string::npos) << out;
}

TEST_F(Report, ADiffColoursWhatIsNewAndListsWhatIsGone) {
  const std::string before = dir_.file("before.data"), after = dir_.file("after.data");
  for (const auto& [data, program] : {std::pair{before, "hot_pair"}, std::pair{after, "hot_loop"}}) {
    test::command_result recorded = test::run_command(
        {arec_binary(), "-q", "-e", "cpu-clock", "-g", "-o", data, "--", test_program(program), "300"});
    ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  }
  const std::string page = dir_.file("diff.html");
  test::command_result reported = test::run_command(
      {arec_binary(), "report", "-q", "-i", after, "--diff", before, "-o", page});
  ASSERT_EQ(reported.exit_code, 0) << reported.describe();
  test::command_result seen = check_page(page, "hot_function");
  ASSERT_EQ(seen.exit_code, 0) << seen.describe() << seen.out;
  const std::string& out = seen.out;
  // hot_function is new: strong red (red well over green and blue).
  std::smatch diff;
  ASSERT_TRUE(std::regex_search(out, diff, std::regex(R"x(\["diff",\[(\d+),(\d+),(\d+)\],"([^"]*)"\])x")))
      << out;
  EXPECT_GT(std::stoi(diff[1]), std::stoi(diff[2]) + 80) << out;
  EXPECT_GT(std::stoi(diff[1]), std::stoi(diff[3]) + 80) << out;
  // hot_pair's callers of its hot functions are gone, listed with the path to them.
  EXPECT_NE(diff[4].str().find("Gone since the base"), std::string::npos) << out;
  EXPECT_NE(diff[4].str().find("main → call_major"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("errors":[])"), std::string::npos) << out;
}

}  // namespace
}  // namespace arec::e2e
