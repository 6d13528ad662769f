// --off-cpu stacks completed from CFI (issue 40): every blocking call of frameless_calls goes
// through a frameless libc wrapper, whose caller frame pointers skip; arec's own file names the
// function that blocked (perf report and perf script), and so does hotspot after convert.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "hotspot_parse.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string> spots{"nap_spot",  "sleep_spot", "pipe_wait_spot", "lock_spot",
                                     "cond_spot", "epoll_spot", "poll_spot"};

struct off_cpu_sample {
  int pid = 0, tid = 0;
  double ns = 0;
  std::vector<std::string> frames;  // leaf first
};

// `perf script -F comm,pid,tid,event,period,ip,sym`: a " comm pid/tid period offcpu-time:" line,
// then one "ADDRESS SYMBOL" line per frame, each starting with a tab.
std::vector<off_cpu_sample> off_cpu_samples(const std::string& text) {
  static const std::regex head(R"(^\s*\S+\s+(\d+)/(\d+)\s+(\d+)\s+offcpu-time:)");
  std::vector<off_cpu_sample> samples;
  bool in_sample = false;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, head)) {
      samples.push_back({std::stoi(match[1]), std::stoi(match[2]), std::stod(match[3]), {}});
      in_sample = true;
    } else if (!line.empty() && line[0] == '\t' && in_sample) {
      std::istringstream frame(line);  // "ADDRESS SYMBOL"
      std::string address, symbol;
      frame >> address >> symbol;
      samples.back().frames.push_back(symbol);
    } else {
      in_sample = false;
    }
  }
  return samples;
}

class CompletedOffCpuStacks : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  }
  test::temp_dir dir_;
};

TEST_F(CompletedOffCpuStacks, PerfNamesTheFunctionThatBlockedForEveryBlockingCall) {
  const std::string data = dir_.file("off.data");
  test::command_result recorded = test::run_command(
      {arec_binary(), "--off-cpu", "-e", "cpu-clock", "-o", data, "--",
       test_program("frameless_calls"), "block", "10"},
      120s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  test::command_result script = test::run_command(
      {"perf", "script", "-i", data, "-F", "comm,pid,tid,event,period,ip,sym"}, 60s);
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  std::map<std::string, double> by_spot;
  double main_ns = 0, named_ns = 0;
  for (const off_cpu_sample& sample : off_cpu_samples(script.out)) {
    if (sample.tid != sample.pid) continue;  // the helper thread's waits
    main_ns += sample.ns;
    for (const std::string& spot : spots)
      if (std::find(sample.frames.begin(), sample.frames.end(), spot) != sample.frames.end()) {
        by_spot[spot] += sample.ns;
        named_ns += sample.ns;
        break;
      }
  }
  ASSERT_GT(main_ns, 0) << script.out.substr(0, 4000);
  EXPECT_GE(named_ns / main_ns, 0.95) << script.out.substr(0, 4000);
  for (const std::string& spot : spots)
    EXPECT_GT(by_spot[spot], 0) << spot << "\n" << script.out.substr(0, 4000);
  EXPECT_EQ(recorded.err.find("kept their frame-pointer stack"), std::string::npos)
      << recorded.err;

  if (!std::ifstream{hotspot_parser_path})
    GTEST_SKIP() << hotspot_parser_path << " is not installed (hotspot)";
  const std::string converted = dir_.file("off.perf");
  test::command_result convert =
      test::run_command({arec_binary(), "convert", "-i", data, "-o", converted}, 60s);
  ASSERT_EQ(convert.exit_code, 0) << convert.describe();
  std::string error;
  std::optional<test::perfparser_totals> totals =
      hotspot_totals(converted, dir_.file("off.stream"), error);
  ASSERT_TRUE(totals) << error;
  for (const std::string& spot : spots) {  // hotspot's off-CPU Time, inclusive of each spot
    auto found = totals->symbols.find({test::off_cpu_time_name, spot});
    ASSERT_NE(found, totals->symbols.end()) << spot;
    EXPECT_GT(found->second.inclusive_cost, 0u) << spot;
  }
}

}  // namespace
}  // namespace arec::e2e
