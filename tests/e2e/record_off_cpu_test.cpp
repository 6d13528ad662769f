// --off-cpu: perf's offcpu-time event made from context switches, read back with perf 6.1:
// blocked time charged to the functions that blocked, in the amounts the program measured;
// preemption left out; long blocks as samples of their own; the time split between rotated
// files and pushed windows; hotspot's views of the converted file; and perf's own
// record_offcpu.sh with arec as the recorder.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "arec_summary.hpp"
#include "control_fifo.hpp"
#include "hotspot_parse.hpp"
#include "hotspot_stream.hpp"
#include "perf_report.hpp"
#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "stand_in/stand_in_server.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// perf report's offcpu-time section: the nanoseconds charged to each leaf symbol.
std::map<std::string, double> off_cpu_ns_by_symbol(const std::string& data) {
  test::command_result report =
      test::run_command({"perf", "report", "-i", data, "--stdio", "--no-children", "-g", "none",
                         "-s", "sym", "-F", "period,sym", "--percent-limit", "0"},
                        60s);
  EXPECT_EQ(report.exit_code, 0) << report.describe();
  std::map<std::string, double> by_symbol;
  std::istringstream lines(report.out);
  bool in_section = false;
  static const std::regex row(R"(^\s+(\d+)\s+\[[.k]\]\s+(\S+))");
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("# Samples:"))
      in_section = line.find("'offcpu-time'") != std::string::npos;
    std::smatch match;
    if (in_section && std::regex_search(line, match, row))
      by_symbol[match[2]] += std::stod(match[1]);
  }
  return by_symbol;
}

class RecordOffCpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  }
  // Runs off_cpu_pair under `options`; returns what it measured: sleep and wait nanoseconds.
  std::pair<double, double> record_pair(std::vector<std::string> options, const std::string& data) {
    options.insert(options.end(), {"-q", "-e", "cpu-clock", "-o", data, "--",
                                   test_program("off_cpu_pair"), "50", "30", "10"});
    test::command_result run = test::run_command(rec_.command(options), 60s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    std::smatch match;
    static const std::regex measured(R"(sleep_ns=(\d+) wait_ns=(\d+))");
    if (!std::regex_search(run.out, match, measured)) {
      ADD_FAILURE() << "off_cpu_pair said: " << run.out;
      return {0, 0};
    }
    return {std::stod(match[1]), std::stod(match[2])};
  }

  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
};

// Blocks shorter than --off-cpu-thresh (500 ms) are summed per thread and stack and written at
// the end: the totals are the program's own measure of its sleeping and waiting.
TEST_F(RecordOffCpu, BlockedTimeIsChargedToTheFunctionsThatBlocked) {
  std::string data = dir_.file("pair.data");
  auto [slept, waited] = record_pair({"--off-cpu"}, data);
  std::map<std::string, double> charged = off_cpu_ns_by_symbol(data);
  EXPECT_NEAR(charged["sleep_in_nanosleep"], slept, 0.2 * slept);
  EXPECT_NEAR(charged["wait_on_pipe"], waited, 0.2 * waited);
}

// The same totals system-wide, compressed, and drained by a streaming thread per cpu (each
// thread's switches in its own rings, ordered across them by time).
TEST_F(RecordOffCpu, BlockedTimeIsTheSameSystemWideCompressedAndWithThreads) {
  for (const std::vector<std::string>& options :
       {std::vector<std::string>{"--off-cpu", "-a"}, std::vector<std::string>{"--off-cpu", "-z"},
        std::vector<std::string>{"--off-cpu", "--threads=cpu"}}) {
    SCOPED_TRACE(::testing::PrintToString(options));
    std::string data = dir_.file("variant.data");
    auto [slept, waited] = record_pair(options, data);
    std::map<std::string, double> charged = off_cpu_ns_by_symbol(data);
    // System-wide, another program's switch flood can fill the rings (the sampled switches
    // of the pair are then lost, and counted): what is charged may only be less, never more.
    if (std::size_t lost = options[1] == "-a" ? lost_records(data) : 0; lost > 0) {
      EXPECT_LE(charged["sleep_in_nanosleep"], 1.2 * slept) << lost << " LOST records";
      EXPECT_LE(charged["wait_on_pipe"], 1.2 * waited) << lost << " LOST records";
    } else {
      EXPECT_NEAR(charged["sleep_in_nanosleep"], slept, 0.2 * slept);
      EXPECT_NEAR(charged["wait_on_pipe"], waited, 0.2 * waited);
    }
    test::run_command({"rm", "-rf", data});
  }
}

// -p and -t attach to a program that waits at a gate (a fifo) before it runs its blocks; the gate
// opens once the recorder has acknowledged a `ping` over --control, that is with its events
// open. The blocks are charged as when the recorder started the program.
TEST_F(RecordOffCpu, AttachedWithPidOrTidBlockedTimeIsCharged) {
  for (const std::string target : {"-p", "-t"}) {
    SCOPED_TRACE(target);
    const std::string gate = dir_.file("gate" + target), control = dir_.file("ctl" + target),
                      ack = dir_.file("ack" + target), data = dir_.file("attached" + target);
    make_fifo(gate);
    make_fifo(control);
    make_fifo(ack);
    io::unique_fd control_fd = open_read_write(control), ack_fd = open_read_write(ack);
    test::child_process program =
        test::child_process::spawn({"sh", "-c", "read go < \"$0\"; exec \"$@\"", gate,
                                    test_program("off_cpu_pair"), "50", "30", "10"});
    test::child_process recording = test::child_process::spawn(
        rec_.command({"-q", "--off-cpu", "-e", "cpu-clock", target, std::to_string(program.pid()),
                      "--control", "fifo:" + control + "," + ack, "-o", data}));
    write_line(control_fd.get(), "ping");
    ASSERT_EQ(read_bytes(ack_fd.get(), perf_ack.size()), perf_ack) << "no ack for ping";
    io::unique_fd gate_fd = open_read_write(gate);
    write_line(gate_fd.get(), "go");
    test::command_result ran = program.wait(60s);
    test::command_result recorded = recording.wait(60s);
    ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
    std::smatch match;
    ASSERT_TRUE(std::regex_search(ran.out, match, std::regex(R"(sleep_ns=(\d+) wait_ns=(\d+))")))
        << ran.describe();
    double slept = std::stod(match[1]), waited = std::stod(match[2]);
    std::map<std::string, double> charged = off_cpu_ns_by_symbol(data);
    EXPECT_NEAR(charged["sleep_in_nanosleep"], slept, 0.2 * slept);
    EXPECT_NEAR(charged["wait_on_pipe"], waited, 0.2 * waited);
  }
}

// With a 10 ms threshold each 50 ms sleep is a sample of its own, written when it ends.
TEST_F(RecordOffCpu, BlocksAtLeastTheThresholdLongAreSamplesOfTheirOwn) {
  std::string data = dir_.file("direct.data");
  auto [slept, waited] = record_pair({"--off-cpu", "--off-cpu-thresh", "10"}, data);
  test::command_result script =
      test::run_command({"perf", "script", "-i", data, "-F", "event,period,ip,sym", "-G"}, 60s);
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  std::size_t sleeps = 0;
  double total = 0;
  std::istringstream lines(script.out);
  static const std::regex sample(R"(^\s*(\d+)\s+offcpu-time:.*\bsleep_in_nanosleep\b)");
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (!std::regex_search(line, match, sample)) continue;
    ++sleeps;
    total += std::stod(match[1]);
  }
  EXPECT_EQ(sleeps, 10u) << script.out.substr(0, 4000);
  EXPECT_NEAR(total, slept, 0.2 * slept);
}

// hotspot 1.3 through arec convert: its parser (hotspot-perfparser) turns the converted file
// into the stream hotspot's GUI reads; decoded here, the offcpu-time cost and the "off-CPU
// Time" hotspot derives from switches (computed as its GUI does) both charge the program's
// measured sleeping and waiting to the functions that blocked.
TEST_F(RecordOffCpu, HotspotShowsTheOffCpuTimeOfTheConvertedFile) {
  if (!rec_.is_arec()) GTEST_SKIP() << "convert is arec's own command";
  ASSERT_TRUE(std::ifstream{hotspot_parser_path}) << hotspot_parser_path << " is missing (hotspot)";
  std::string data = dir_.file("hotspot.data"), converted = dir_.file("hotspot.perf"),
              stream = dir_.file("hotspot.stream");
  auto [slept, waited] = record_pair({"--off-cpu"}, data);
  test::command_result convert =
      test::run_command({arec_binary(), "convert", "-i", data, "-o", converted}, 60s);
  ASSERT_EQ(convert.exit_code, 0) << convert.describe();
  EXPECT_NE(convert.err.find("samples also written as sched:sched_switch"), std::string::npos)
      << convert.err;
  std::string error;
  std::optional<test::perfparser_totals> totals = hotspot_totals(converted, stream, error);
  ASSERT_TRUE(totals) << error;
  for (const char* cost : {"offcpu-time", test::off_cpu_time_name}) {
    SCOPED_TRACE(cost);
    auto self = [&](const char* symbol) {
      auto found = totals->symbols.find({cost, symbol});
      return found == totals->symbols.end() ? 0.0 : static_cast<double>(found->second.self_cost);
    };
    EXPECT_NEAR(self("sleep_in_nanosleep"), slept, 0.2 * slept);
    EXPECT_NEAR(self("wait_on_pipe"), waited, 0.2 * waited);
  }
  EXPECT_EQ(totals->events[test::off_cpu_time_name].cost, totals->events["offcpu-time"].cost)
      << "every block's time is in hotspot's off-CPU Time, once";
}

// arec export gives off-CPU time a sample type of its own, in nanoseconds, beside the CPU
// samples: go tool pprof charges it to the functions that blocked.
TEST_F(RecordOffCpu, ExportCarriesOffCpuTimeAsItsOwnSampleType) {
  std::string data = dir_.file("export.data");
  auto [slept, waited] = record_pair({"--off-cpu"}, data);
  std::string profile = dir_.file("export.pb.gz");
  test::command_result exported =
      test::run_command({arec_binary(), "export", "-q", "-i", data, "-o", profile}, 60s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  test::command_result top =
      test::run_command({"go", "tool", "pprof", "-raw", "-symbolize=none", profile}, 60s);
  ASSERT_EQ(top.exit_code, 0) << top.describe();
  EXPECT_NE(top.out.find("offcpu-time/nanoseconds"), std::string::npos) << top.out.substr(0, 2000);
  EXPECT_NE(top.out.find("cpu-clock/nanoseconds"), std::string::npos) << top.out.substr(0, 2000);
  test::command_result by_function =
      test::run_command({"go", "tool", "pprof", "-top", "-sample_index=offcpu-time", "-unit=ms",
                         "-symbolize=none", profile},
                        60s);
  ASSERT_EQ(by_function.exit_code, 0) << by_function.describe();
  std::map<std::string, double> ms;
  std::istringstream lines(by_function.out);
  static const std::regex row(
      R"(^\s*([\d.]+)ms\s+[\d.]+%\s+[\d.]+%\s+[\d.]+m?s\s+[\d.]+%\s+(\S+))");
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, row)) ms[match[2]] = std::stod(match[1]);
  }
  EXPECT_NEAR(ms["sleep_in_nanosleep"] * 1e6, slept, 0.2 * slept) << by_function.out;
  EXPECT_NEAR(ms["wait_on_pipe"] * 1e6, waited, 0.2 * waited) << by_function.out;
}

// In OTLP, off-CPU time is a Profile of its own, off_cpu/nanoseconds, beside the CPU samples,
// charged to the functions that blocked (decoded by npm's protobufjs).
TEST_F(RecordOffCpu, ExportToOtlpMakesOffCpuTimeAProfileOfItsOwn) {
  std::string data = dir_.file("otlp.data");
  auto [slept, waited] = record_pair({"--off-cpu"}, data);
  std::string request = dir_.file("otlp.pb");
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "-q", "--format=otlp", "-i", data, "-o", request}, 60s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  for (auto [leaf, measured] : {std::pair{"sleep_in_nanosleep", slept}, {"wait_on_pipe", waited}}) {
    test::command_result decoded = npm_otlp_summary(request, leaf);
    ASSERT_EQ(decoded.exit_code, 0) << decoded.describe();
    EXPECT_NE(decoded.out.find("\"problems\":[]"), std::string::npos) << decoded.out;
    EXPECT_NE(decoded.out.find("\"samples/count\":"), std::string::npos) << decoded.out;
    auto totals = decoded.out.find("\"leafTotals\":");
    ASSERT_NE(totals, std::string::npos) << decoded.out;
    double charged =
        static_cast<double>(json_number(decoded.out.substr(totals), "off_cpu/nanoseconds"));
    EXPECT_NEAR(charged, measured, 0.2 * measured) << leaf << "\n" << decoded.out;
  }
}

// Each file of a rotated recording holds the off-CPU time that ended in it: the blocks written
// as they end, and the sums of short blocks at each cut. Together they are the whole, once.
TEST_F(RecordOffCpu, RotationSplitsTheTimeWithoutLosingOrDoublingAny) {
  std::string data = dir_.file("rotated.data");
  std::vector<std::string> options{"--off-cpu", "--switch-output=1s"};
  options.insert(options.end(), {"-q", "-e", "cpu-clock", "-o", data, "--",
                                 test_program("off_cpu_pair"), "50", "30", "30"});
  test::command_result run = test::run_command(rec_.command(options), 60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::smatch match;
  ASSERT_TRUE(std::regex_search(run.out, match, std::regex(R"(sleep_ns=(\d+) wait_ns=(\d+))")))
      << run.out;
  double slept = std::stod(match[1]), waited = std::stod(match[2]);
  double sleep_total = 0, wait_total = 0;
  std::size_t files = 0, with_time = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    if (!entry.path().filename().string().starts_with("rotated.data.")) continue;
    ++files;
    std::map<std::string, double> charged = off_cpu_ns_by_symbol(entry.path());
    if (charged["sleep_in_nanosleep"] > 0) ++with_time;
    sleep_total += charged["sleep_in_nanosleep"];
    wait_total += charged["wait_on_pipe"];
  }
  EXPECT_GE(files, 2u);
  EXPECT_GE(with_time, 2u) << "the time is not split between the files";
  EXPECT_NEAR(sleep_total, slept, 0.2 * slept);
  EXPECT_NEAR(wait_total, waited, 0.2 * waited);
}

// --push: every window's profile carries the off-CPU time that ended in it as its own sample
// type (decoded with npm's pprof-format); over the windows it adds up to what the program
// measured, charged to the functions that blocked.
TEST_F(RecordOffCpu, PushedWindowsCarryTheOffCpuTimeThatEndedInThem) {
  if (!rec_.is_arec()) GTEST_SKIP() << "--push is arec's own";
  test::stand_in_server server;
  test::command_result run = test::run_command(
      {arec_binary(), "--off-cpu", "-e", "cpu-clock", "--push", server.url(), "--push-interval",
       "1s", "--", test_program("off_cpu_pair"), "100", "100", "15"},
      60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::smatch match;
  ASSERT_TRUE(std::regex_search(run.out, match, std::regex(R"(sleep_ns=(\d+) wait_ns=(\d+))")))
      << run.out;
  double slept = std::stod(match[1]), waited = std::stod(match[2]);
  std::vector<test::received_push> received = server.received();
  ASSERT_GE(received.size(), 2u) << run.describe();
  const std::string type = "offcpu-time/nanoseconds", scratch = dir_.file("window.pb.gz");
  double sleep_total = 0, wait_total = 0;
  std::size_t with_time = 0;
  for (const test::received_push& push : received) {
    ASSERT_EQ(push.profiles.size(), 1u);
    std::ofstream(scratch, std::ios::binary) << push.profiles.front();
    test::command_result sleeps = npm_pprof_summary(scratch, "sleep_in_nanosleep");
    test::command_result waits = npm_pprof_summary(scratch, "wait_on_pipe");
    ASSERT_EQ(sleeps.exit_code, 0) << sleeps.describe();
    ASSERT_EQ(waits.exit_code, 0) << waits.describe();
    EXPECT_NE(sleeps.out.find("\"" + type + "\""), std::string::npos) << sleeps.out;
    long long slept_here = std::max(0LL, json_number(sleeps.out, type));
    if (slept_here > 0) ++with_time;
    sleep_total += static_cast<double>(slept_here);
    wait_total += static_cast<double>(std::max(0LL, json_number(waits.out, type)));
  }
  EXPECT_GE(with_time, 2u) << "the off-CPU time is not split between the windows";
  EXPECT_NEAR(sleep_total, slept, 0.2 * slept);
  EXPECT_NEAR(wait_total, waited, 0.2 * waited);
}

// kill -9 leaves no EVENT_DESC, and perf 6.1 names the offcpu-time attr "unknown-software";
// `arec convert --salvage` knows arec's off-CPU attr and names it again (convert/event_names).
TEST_F(RecordOffCpu, KillNineThenSalvageNamesTheOffCpuEvent) {
  if (!rec_.is_arec()) GTEST_SKIP() << "convert --salvage is arec's own command";
  const std::string data = dir_.file("killed.data"), salvaged = dir_.file("salvaged.data");
  test::child_process program =
      test::child_process::spawn({test_program("off_cpu_pair"), "20", "10", "1000000"});
  // Every block a sample of its own, written when it ends: blocks are on disk before the kill.
  test::child_process recording =
      test::child_process::spawn(rec_.command({"-v", "--off-cpu", "--off-cpu-thresh", "0", "-g",
                                               "-p", std::to_string(program.pid()), "-o", data}));
  ASSERT_TRUE(wait_for_samples_on_disk(recording, 10)) << recording.stderr_so_far();
  recording.send_signal(SIGKILL);
  test::command_result killed = recording.wait(10s);
  ASSERT_EQ(killed.term_signal, SIGKILL) << killed.describe();
  auto events_of = [](const std::string& file) {
    test::command_result script =
        test::run_command({"perf", "script", "-i", file, "-F", "event"}, 60s);
    EXPECT_EQ(script.exit_code, 0) << script.describe();
    return script.out;
  };
  ASSERT_NE(events_of(data).find("unknown-software"), std::string::npos)
      << "the killed file names the off-CPU samples as perf does without EVENT_DESC";

  test::command_result salvage =
      test::run_command({arec_binary(), "convert", "--salvage", "-i", data, "-o", salvaged}, 60s);
  ASSERT_EQ(salvage.exit_code, 0) << salvage.describe();
  std::string events = events_of(salvaged);
  EXPECT_NE(events.find("offcpu-time:"), std::string::npos) << events.substr(0, 2000);
  EXPECT_EQ(events.find("unknown-software"), std::string::npos) << events.substr(0, 2000);
  test::command_result report =
      test::run_command({"perf", "report", "-i", salvaged, "--stdio", "-g", "none"}, 60s);
  ASSERT_EQ(report.exit_code, 0) << report.describe();
  EXPECT_NE(report.out.find("of event 'offcpu-time'"), std::string::npos)
      << report.out.substr(0, 2000);
}

// A switch flood (both ends of a pipe on one cpu: a switch per message) overflows small rings: the
// kernel's LOST records then carry the switch sampler's ids, so its attr is in the file (its
// samples are not) and perf reads the file (without it perf 6.1 stopped: "failed to process type:
// 2").
TEST_F(RecordOffCpu, LossesInASwitchFloodLeaveAFilePerfReads) {
  std::string data = dir_.file("flood.data");
  test::command_result run = test::run_command(
      rec_.command({"-q", "--off-cpu", "-g", "-m", "2", "-e", "cpu-clock", "-o", data, "--",
                    "taskset", "-c", "0", "perf", "bench", "sched", "pipe", "-l", "100000"}),
      120s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  test::command_result stats = test::run_command({"perf", "report", "-i", data, "--stats"}, 60s);
  ASSERT_EQ(stats.exit_code, 0) << stats.describe();
  EXPECT_EQ(stats.err.find("failed to process"), std::string::npos) << stats.err;
  EXPECT_NE(stats.out.find("LOST events"), std::string::npos)
      << "two-page rings lost nothing in a switch flood: the test did not test losses\n"
      << stats.out;
  test::command_result report = test::run_command({"perf", "report", "-i", data, "--stdio"}, 60s);
  ASSERT_EQ(report.exit_code, 0) << report.describe();
  EXPECT_NE(report.out.find("of event 'offcpu-time'"), std::string::npos)
      << report.out.substr(0, 2000);
}

// --off-cpu adds the offcpu-time event and nothing else: the other events' samples are those of
// a recording without it, and the switch sampler's own never reach the file. Page faults (one
// sample each) count the same in both, whatever the load; the cpu-clock samples, whose count a
// loaded machine changes from run to run (the timer restarts at each preemption), keep their
// hot symbol.
TEST_F(RecordOffCpu, OnCpuSamplesAreThoseOfARecordingWithoutIt) {
  auto events_and_leaves = [&](std::vector<std::string> options, const std::string& data) {
    options.insert(options.end(), {"-q", "-e", "cpu-clock", "-e", "page-faults/period=1/", "-g",
                                   "-o", data, "--", test_program("hot_loop"), "300"});
    test::command_result run = test::run_command(rec_.command(options), 60s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    test::command_result script =
        test::run_command({"perf", "script", "-i", data, "-F", "event,ip,sym", "-G"}, 60s);
    EXPECT_EQ(script.exit_code, 0) << script.describe();
    std::map<std::string, std::map<std::string, double>> counted;  // event -> leaf -> samples
    std::istringstream lines(script.out);
    static const std::regex row(R"(^\s*([\w:/=-]+):\s+[0-9a-f]+\s+(\S+))");
    for (std::string line; std::getline(lines, line);) {
      std::smatch match;
      if (std::regex_search(line, match, row)) ++counted[match[1]][match[2]];
    }
    return counted;
  };
  auto total = [](const std::map<std::string, double>& leaves) {
    double sum = 0;
    for (const auto& [leaf, samples] : leaves) sum += samples;
    return sum;
  };
  auto without = events_and_leaves({}, dir_.file("without.data"));
  auto with = events_and_leaves({"--off-cpu"}, dir_.file("with.data"));
  for (const auto& [event, leaves] : with)
    EXPECT_TRUE(event == "cpu-clock" || event == "page-faults/period=1/" || event == "offcpu-time")
        << event << " samples in the file";
  double faults_before = total(without["page-faults/period=1/"]);
  double faults_after = total(with["page-faults/period=1/"]);
  EXPECT_GT(faults_before, 0);
  EXPECT_NEAR(faults_after, faults_before, std::max(5.0, 0.1 * faults_before));
  for (auto* recording : {&without, &with}) {
    double hot = (*recording)["cpu-clock"]["hot_function"];
    EXPECT_GT(hot, 0);
    EXPECT_GT(hot, 0.9 * total((*recording)["cpu-clock"])) << "hot_function is not the hot symbol";
  }
}

// A thread that is preempted (runnable, waiting for a cpu) is not off the cpu in perf's sense:
// a spinner sharing the cpus with two others gets (almost) no off-CPU time.
TEST_F(RecordOffCpu, PreemptionIsNotOffCpuTime) {
  std::vector<test::child_process> spinners;
  for (int i = 0; i < 2; ++i)
    spinners.push_back(test::child_process::spawn({test_program("hot_loop"), "100000"}));
  std::string data = dir_.file("spin.data");
  test::command_result run =
      test::run_command(rec_.command({"-q", "--off-cpu", "-e", "cpu-clock", "-o", data, "--",
                                      test_program("hot_loop"), "500"}),
                        60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::map<std::string, double> charged = off_cpu_ns_by_symbol(data);
  EXPECT_LT(charged["hot_function"], 0.05 * 500e6) << "preempted time was counted as blocked";
}

// tools/perf/tests/shell/record_offcpu.sh, as Debian's linux-perf installs it, with arec as
// `perf record` (perf 6.1 itself skips it: it was built without BPF).
TEST_F(RecordOffCpu, PerfsOwnOffCpuTestPassesWithArecAsTheRecorder) {
  const std::string script = "/usr/lib/perf-core/tests/shell/record_offcpu.sh";
  ASSERT_TRUE(std::ifstream{script}) << script << " is missing (linux-perf)";
  std::string bin = dir_.file("bin");
  test::run_command({"mkdir", "-p", bin});
  std::vector<std::string> recorder = rec_.command({});
  std::string record;
  for (const std::string& part : recorder) record += "'" + part + "' ";
  std::ofstream{bin + "/perf"} << "#!/bin/sh\n"
                               << "if [ \"$1\" = record ]; then shift; exec " << record
                               << "\"$@\"; fi\nexec /usr/bin/perf \"$@\"\n";
  test::run_command({"chmod", "+x", bin + "/perf"});
  // The script's child test counts the blocking points of `perf bench sched messaging` (800
  // at least), which a busy machine changes: a task that gets less CPU blocks in other places.
  // So it runs as an idle machine would run it, in a session of its own whose scheduler
  // autogroup (kernel.sched_autogroup_enabled) outranks the host's other work; nice alone
  // ranks tasks only inside their own group.
  test::command_result run = test::run_command(
      {"setsid", "--wait", "env", "PATH=" + bin + ":/usr/sbin:/usr/bin:/sbin:/bin", "sh", "-c",
       "{ echo -10 >/proc/self/autogroup; } 2>/dev/null; exec sh \"$0\"", script},
      120s);
  EXPECT_EQ(run.exit_code, 0) << run.describe() << "\n" << run.out;
  EXPECT_NE(run.out.find("Basic off-cpu test [Success]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Child task off-cpu test [Success]"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace arec::e2e
