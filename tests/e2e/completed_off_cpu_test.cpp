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
#include "pushed_windows.hpp"
#include "recorder.hpp"
#include "stand_in/stand_in_server.hpp"
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

// The offcpu-time samples of a pprof profile as `go tool pprof -traces` lists them in ns: per
// trace "pid:" and "tid:" labels, then "VALUEns   leaf" and one caller per line.
std::vector<off_cpu_sample> pprof_off_cpu_samples(const std::string& profile) {
  test::command_result traces =
      test::run_command({"go", "tool", "pprof", "-traces", "-symbolize=none",
                         "-sample_index=offcpu-time", "-unit=ns", profile},
                        60s);
  EXPECT_EQ(traces.exit_code, 0) << traces.describe();
  static const std::regex label(R"(^\s*(pid|tid):\s+(\d+)\s*$)");
  // A function inlined into the next frame (DWARF of libc6-dbg's debug file) ends in " (inline)".
  static const std::regex leaf(R"(^\s*(\d+)ns\s+(\S+)(?: \(inline\))?\s*$)");
  static const std::regex caller(R"(^\s+(\S+)(?: \(inline\))?\s*$)");
  std::vector<off_cpu_sample> samples;
  off_cpu_sample trace;
  std::istringstream lines(traces.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (line.starts_with("-----------+")) {
      if (!trace.frames.empty()) samples.push_back(trace);
      trace = {};
    } else if (std::regex_search(line, match, label)) {
      (match[1] == "pid" ? trace.pid : trace.tid) = std::stoi(match[2]);
    } else if (trace.frames.empty() && std::regex_search(line, match, leaf)) {
      trace.ns = std::stod(match[1]);
      trace.frames.push_back(match[2]);
    } else if (!trace.frames.empty() && std::regex_search(line, match, caller)) {
      trace.frames.push_back(match[1]);
    }
  }
  if (!trace.frames.empty()) samples.push_back(trace);
  return samples;
}

// The main thread's off-CPU time (the helper thread's waits are left out) and the part of it
// charged to a stack that names one of the spots, in total and per spot.
struct spot_shares {
  std::map<std::string, double> by_spot;
  double main_ns = 0, named_ns = 0;
};

spot_shares shares_of(const std::vector<off_cpu_sample>& samples) {
  spot_shares shares;
  for (const off_cpu_sample& sample : samples) {
    if (sample.tid != sample.pid) continue;
    shares.main_ns += sample.ns;
    for (const std::string& spot : spots)
      if (std::find(sample.frames.begin(), sample.frames.end(), spot) != sample.frames.end()) {
        shares.by_spot[spot] += sample.ns;
        shares.named_ns += sample.ns;
        break;
      }
  }
  return shares;
}

// At least 95% of the main thread's off-CPU time names the function that blocked, each of them.
void expect_every_spot_named(const spot_shares& shares, const std::string& context) {
  ASSERT_GT(shares.main_ns, 0) << context;
  EXPECT_GE(shares.named_ns / shares.main_ns, 0.95) << context;
  for (const std::string& spot : spots)
    EXPECT_GT(shares.by_spot.count(spot), 0u) << spot << "\n" << context;
}

class CompletedOffCpuStacks : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  }
  // What perf script shows of frameless_calls's blocking calls recorded with `options`: the
  // share of the main thread's off-CPU time that names a spot, and each spot's time.
  struct spot_times : spot_shares {
    test::command_result recorded;
    std::vector<off_cpu_sample> samples;
    std::string script;  // the beginning, for messages
  };
  spot_times record_spots(const std::string& data, const std::vector<std::string>& options) {
    spot_times result;
    std::vector<std::string> command{arec_binary(), "--off-cpu", "-e", "cpu-clock", "-o", data};
    command.insert(command.end(), options.begin(), options.end());
    command.insert(command.end(), {"--", test_program("frameless_calls"), "block", "10"});
    result.recorded = test::run_command(command, 120s);
    EXPECT_EQ(result.recorded.exit_code, 0) << result.recorded.describe();
    test::command_result script = test::run_command(
        {"perf", "script", "-i", data, "-F", "comm,pid,tid,event,period,ip,sym"}, 60s);
    EXPECT_EQ(script.exit_code, 0) << script.describe();
    result.script = script.out.substr(0, 4000);
    result.samples = off_cpu_samples(script.out);
    static_cast<spot_shares&>(result) = shares_of(result.samples);
    return result;
  }

  test::temp_dir dir_;
};

TEST_F(CompletedOffCpuStacks, PerfNamesTheFunctionThatBlockedForEveryBlockingCall) {
  const std::string data = dir_.file("off.data");
  spot_times times = record_spots(data, {});
  // Not every switch-out is completed (a page fault in _start has no CFI above it, and the
  // summary counts it): the share of the blocked time that names its caller is the measure.
  expect_every_spot_named(times, times.script + times.recorded.err);

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

// --off-cpu --call-graph dwarf: offcpu-time samples carry the switch-out's user registers and
// stack (perf's DWARF mode), which perf script unwinds whole: above pthread_cond_wait too,
// whose use of rbp cuts the frame-pointer chain, main is found.
TEST_F(CompletedOffCpuStacks, WithDwarfPerfUnwindsEveryBlockingCallToMain) {
  const std::string data = dir_.file("dwarf.data");
  spot_times times = record_spots(data, {"--call-graph", "dwarf"});
  expect_every_spot_named(times, times.script);
  double with_main = 0;
  for (const off_cpu_sample& sample : times.samples)
    if (sample.tid == sample.pid &&
        std::find(sample.frames.begin(), sample.frames.end(), "main") != sample.frames.end())
      with_main += sample.ns;
  EXPECT_GE(with_main, 0.95 * times.main_ns) << times.script;
  test::command_result evlist = test::run_command({"perf", "evlist", "-v", "-i", data});
  EXPECT_NE(evlist.out.find("offcpu-time: type: 1"), std::string::npos) << evlist.out;
  EXPECT_NE(evlist.out.find("REGS_USER|STACK_USER"), std::string::npos) << evlist.out;
}

// arec export reads the chains arec wrote: go tool pprof's offcpu-time traces name the function
// that blocked as perf script does.
TEST_F(CompletedOffCpuStacks, ExportNamesTheFunctionThatBlocked) {
  const std::string data = dir_.file("off.data");
  record_spots(data, {});
  const std::string profile = dir_.file("off.pb.gz");
  test::command_result exported =
      test::run_command({arec_binary(), "export", "-i", data, "-o", profile}, 60s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  expect_every_spot_named(shares_of(pprof_off_cpu_samples(profile)), exported.err);
}

// --push windows (to the stand-in Pyroscope) carry them too, window by window.
TEST(CompletedOffCpuPush, PushedWindowsNameTheFunctionThatBlocked) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::stand_in_server server;
  test::temp_dir dir;
  test::command_result run = test::run_command(
      push_command("pyroscope", server.url(),
                   {"--off-cpu", "--", test_program("frameless_calls"), "block", "10"}),
      120s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::vector<off_cpu_sample> samples;
  for (const test::received_push& push : server.received()) {
    if (push.profiles.empty()) continue;
    std::string window = dir.file("window-" + std::to_string(samples.size()) + ".pb.gz");
    std::ofstream(window, std::ios::binary) << push.profiles.front();
    std::vector<off_cpu_sample> in_window = pprof_off_cpu_samples(window);
    samples.insert(samples.end(), in_window.begin(), in_window.end());
  }
  expect_every_spot_named(shares_of(samples), run.err);
}

}  // namespace
}  // namespace arec::e2e
