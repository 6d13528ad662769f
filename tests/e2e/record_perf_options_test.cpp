// perf record's options that set the events' attrs or the header: each command line is
// recorded by arec and by perf record here, and what perf reads back is compared.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "side_by_side.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// The attr fields these options decide, from every event `perf evlist -v` lists (of
// read_format, the bits -s adds: perf sets ID|LOST always, arec only what it uses). arec adds a
// tracking event where perf puts tracking on the first event, so the fields are gathered
// over all events; the sample period or frequency only from the first (the tracking event's
// period of 1 is arec's own).
std::set<std::string> decided_fields(const std::string& data) {
  test::command_result evlist = test::run_command({"perf", "evlist", "-v", "-i", data});
  EXPECT_EQ(evlist.exit_code, 0) << evlist.describe();
  static const std::regex field(
      R"(\b(inherit|exclude_user|exclude_kernel|use_clockid|clockid|context_switch|namespaces|)"
      R"(inherit_stat|\{ wakeup_events, wakeup_watermark \}): \d+|TOTAL_TIME_[A-Z]+)");
  static const std::regex period(R"(\{ sample_period, sample_freq \}: \d+)");
  std::set<std::string> fields;
  std::size_t start = 0;
  for (bool first = true; start < evlist.out.size(); first = false) {
    std::size_t end = evlist.out.find('\n', start);
    std::string line = evlist.out.substr(start, end - start);
    for (std::sregex_iterator it(line.begin(), line.end(), field), stop; it != stop; ++it)
      fields.insert(it->str());
    std::smatch match;
    if (first)
      fields.insert(std::regex_search(line, match, period) ? match.str() : "no sample period");
    start = end == std::string::npos ? end : end + 1;
  }
  return fields;
}

std::string header_of(const std::string& data) {
  test::command_result header = test::run_command({"perf", "report", "--header-only", "-i", data});
  EXPECT_EQ(header.exit_code, 0) << header.describe();
  return header.out;
}

// The lines of `text` that contain `word`.
std::vector<std::string> lines_with(const std::string& text, const std::string& word) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string line = text.substr(start, end - start);
    if (line.find(word) != std::string::npos) lines.push_back(line);
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

std::size_t count_of(const std::string& text, const std::string& word) {
  return lines_with(text, word).size();
}

class RecordPerfOptions : public side_by_side_test {};

TEST_F(RecordPerfOptions, AttrFieldsAreSetAsPerfSetsThem) {
  const std::vector<std::vector<std::string>> cases{
      {},
      {"-i"},
      {"--no-inherit"},
      {"--all-user"},
      {"--all-kernel"},
      {"-e", "cpu-clock:k", "--all-user"},
      {"-k", "mono"},
      {"-k", "CLOCK_MONOTONIC_RAW"},
      {"--clockid=boottime"},
      {"-k", "11"},
      {"--switch-events"},
      {"--namespaces"},
      {"-n"},
      {"--no-buffering"},
      {"-T", "--sample-cpu", "-P"},
      {"-c", "100000", "-n"},
      {"-s"},
      {"--stat", "-i"},
  };
  for (const std::vector<std::string>& options : cases) {
    std::string described;
    for (const std::string& option : options) described += option + " ";
    SCOPED_TRACE(described);
    std::vector<std::string> args = options;
    if (std::find(args.begin(), args.end(), "-e") == args.end())
      args.insert(args.begin(), {"-e", "cpu-clock"});
    record(rec_, args, ours_);
    record(perf_, args, theirs_);
    EXPECT_EQ(decided_fields(ours_), decided_fields(theirs_));
  }
}

TEST_F(RecordPerfOptions, ClockidWritesTheClockFeaturesPerfReads) {
  record(rec_, {"-e", "cpu-clock", "-k", "monotonic_raw"}, ours_);
  record(perf_, {"-e", "cpu-clock", "-k", "monotonic_raw"}, theirs_);
  std::vector<std::string> clock_lines = lines_with(header_of(ours_), "# clockid");
  EXPECT_EQ(clock_lines, lines_with(header_of(theirs_), "# clockid"));
  EXPECT_EQ(clock_lines.size(), 2u);  // "clockid frequency: ..." and "clockid: monotonic_raw (4)"
  // The reference instant lets perf script print times of day.
  test::command_result script =
      test::run_command({"perf", "script", "-F", "tod", "-i", ours_}, 60s);
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  EXPECT_TRUE(std::regex_search(script.out, std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.)")))
      << script.out;
}

// -s: perf report -T lists each thread's count, read from the READ records of exiting threads.
TEST_F(RecordPerfOptions, StatGivesPerfReportItsPerThreadCounts) {
  for (const recorder& who : {rec_, perf_}) {
    SCOPED_TRACE(who.describe());
    record(who, {"-e", "cpu-clock", "-s"}, ours_, {"sh", "-c", test_program("hot_loop") + " 100"});
    test::command_result report =
        test::run_command({"perf", "report", "-T", "--stdio", "-i", ours_}, 60s);
    ASSERT_EQ(report.exit_code, 0) << report.describe();
    std::smatch columns;  // as wide as the pids
    ASSERT_TRUE(std::regex_search(report.out, columns, std::regex(R"(#\s+PID\s+TID\s+cpu-clock)")))
        << report.out;
    std::size_t table = static_cast<std::size_t>(columns.position(0));
    std::istringstream rows(report.out.substr(table));
    std::string header;
    std::getline(rows, header);
    std::size_t counted = 0;
    for (long pid = 0, tid = 0, count = 0; rows >> pid >> tid >> count;) counted += count > 0;
    EXPECT_GE(counted, 1u) << report.out.substr(table);
  }
}

// Branch stacks need a PMU that records branches: where perf refuses -b, arec refuses it in
// perf's words and leaves no file; where perf records, arec does too. The default event's
// fallback (cycles to cpu-clock) must not loop when cpu-clock is refused as well.
TEST_F(RecordPerfOptions, BranchStacksGoWherePerfTakesThem) {
  for (std::vector<std::string> options :
       {std::vector<std::string>{"-b"}, {"-e", "cpu-clock", "-j", "any_call,u"}}) {
    std::vector<std::string> perf_args = options, arec_args = options;
    perf_args.insert(perf_args.end(), {"-q", "-o", theirs_, "--", "true"});
    arec_args.insert(arec_args.end(), {"-o", ours_, "--", "true"});
    test::command_result reference = test::run_command(perf_.command(perf_args), 60s);
    test::command_result run = test::run_command(rec_.command(arec_args), 60s);
    ASSERT_FALSE(run.timed_out) << run.describe();
    if (reference.exit_code == 0) {
      EXPECT_EQ(run.exit_code, 0) << run.describe();
      continue;
    }
    EXPECT_NE(run.exit_code, 0) << run.describe();
    if (!rec_.is_arec()) continue;  // perf leaves a file behind; arec opens events first
    EXPECT_FALSE(std::filesystem::exists(ours_));
    EXPECT_NE(run.err.find("arec: error: cpu-clock: PMU hardware or event type doesn't "
                           "support branch stack sampling (-b, -j)\n"),
              std::string::npos)
        << run.err;
  }
}

// The sample fields of every event and the attr fields that go with them, as `perf evlist -v`
// prints them. ID and CPU are left out: arec samples them always (its events share rings),
// perf only when it has several events.
std::set<std::string> sample_contents(const std::string& data) {
  test::command_result evlist = test::run_command({"perf", "evlist", "-v", "-i", data});
  EXPECT_EQ(evlist.exit_code, 0) << evlist.describe();
  static const std::regex sample_type(R"(sample_type: ([A-Z_|]+))");
  static const std::regex related(R"(\b(sample_regs_user|sample_regs_intr|mmap_data): \w+)");
  std::set<std::string> contents;
  for (std::sregex_iterator it(evlist.out.begin(), evlist.out.end(), sample_type), stop; it != stop;
       ++it) {
    std::istringstream bits((*it)[1].str());
    for (std::string bit; std::getline(bits, bit, '|');)
      if (bit != "ID" && bit != "CPU") contents.insert(bit);
  }
  for (std::sregex_iterator it(evlist.out.begin(), evlist.out.end(), related), stop; it != stop;
       ++it)
    contents.insert(it->str());
  return contents;
}

TEST_F(RecordPerfOptions, SampleContentsAreThoseOfPerf) {
  const std::vector<std::vector<std::string>> cases{
      {"-d"},
      {"--data"},
      {"-W"},
      {"-R"},
      {"--phys-data"},
      {"--data-page-size"},
      {"--code-page-size"},
      {"--user-regs"},
      {"--user-regs=ip,SP,r15"},
      {"-I"},
      {"-Iax,flags"},
      {"--intr-regs=ip"},
      {"--sample-identifier"},
      {"-d", "--sample-identifier", "-W"},
      {"--call-graph", "dwarf", "--user-regs=ip"},
  };
  for (const std::vector<std::string>& options : cases) {
    std::string described;
    for (const std::string& option : options) described += option + " ";
    SCOPED_TRACE(described);
    std::vector<std::string> args = options;
    args.insert(args.begin(), {"-e", "cpu-clock"});
    record(rec_, args, ours_);
    record(perf_, args, theirs_);
    std::set<std::string> expected = sample_contents(theirs_);
    if (rec_.is_arec() && options.front() == "--call-graph") {
      // perf's DWARF mode turns -d on to get the data mappings; arec records those without
      // adding a data address to every sample (docs/perf-options.md).
      expected.erase("ADDR");
      expected.erase("DATA_SRC");
    }
    EXPECT_EQ(sample_contents(ours_), expected);
  }
}

// What those fields hold reaches perf script: each sample of a busy loop carries its registers,
// page sizes and data fields, in a file whose ids lead the records (IDENTIFIER).
TEST_F(RecordPerfOptions, SampleFieldsAreReadBackByPerfScript) {
  record(rec_,
         {"-e", "cpu-clock", "-d", "-W", "--phys-data", "--data-page-size", "--code-page-size",
          "-Iip,sp", "--user-regs=ip", "--sample-identifier"},
         ours_, {test_program("hot_loop"), "100"});
  test::command_result script =
      test::run_command({"perf", "script", "-i", ours_, "-F",
                         "comm,ip,addr,weight,phys_addr,data_page_size,code_page_size,iregs,uregs"},
                        60s);
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  std::vector<std::string> samples = lines_with(script.out, "hot_loop");
  ASSERT_GE(samples.size(), 10u) << script.out;  // 100 ms at 4000 Hz
  static const std::regex fields(
      R"(ABI:2 +SP:0x[0-9a-f]+ +IP:0x([0-9a-f]+) +ABI:\d +IP:0x[0-9a-f]+ +\d+ +\S+ +(4K|2M|1G|N/A)$)");
  std::size_t matching = 0;
  for (const std::string& line : samples) {
    std::smatch match;
    if (!std::regex_search(line, match, fields)) continue;
    ++matching;
    EXPECT_NE(line.find(" " + match[1].str() + " "), std::string::npos)
        << "the interrupted IP is the sample's: " << line;
  }
  EXPECT_EQ(matching, samples.size()) << script.out;
}

TEST_F(RecordPerfOptions, RegisterNamesAreListedAndCheckedAsInPerf) {
  if (!rec_.is_arec()) GTEST_SKIP() << "arec's wording";
  test::command_result list = test::run_command(rec_.command({"--user-regs=?"}), 60s);
  EXPECT_EQ(list.exit_code, 0) << list.describe();
  EXPECT_EQ(list.out,
            "available registers: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8 R9 R10 R11 R12 R13 "
            "R14 R15\n");
  test::command_result bad =
      test::run_command(rec_.command({"-Iip,xmm0", "-o", ours_, "--", "true"}), 60s);
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
  EXPECT_EQ(bad.err, "arec: error: -I ip,xmm0: unknown register 'xmm0' (-I? lists them)\n");
}

TEST_F(RecordPerfOptions, NoSamplesRecordsOnlyWhatRuns) {
  record(rec_, {"-e", "cpu-clock", "-n"}, ours_, {test_program("hot_loop"), "100"});
  test::command_result dump = test::run_command({"perf", "report", "-D", "-i", ours_}, 60s);
  ASSERT_EQ(dump.exit_code, 0) << dump.describe();
  EXPECT_EQ(count_of(dump.out, "PERF_RECORD_SAMPLE"), 0u);
  EXPECT_GT(count_of(dump.out, "PERF_RECORD_COMM"), 0u);
  EXPECT_GT(count_of(dump.out, "PERF_RECORD_MMAP2"), 0u);
}

TEST_F(RecordPerfOptions, SwitchEventsAndNamespacesAreRecorded) {
  record(rec_, {"-e", "cpu-clock", "--switch-events", "--namespaces"}, ours_,
         {"sh", "-c", "sleep 0.01; sleep 0.01"});
  test::command_result dump = test::run_command({"perf", "report", "-D", "-i", ours_}, 60s);
  ASSERT_EQ(dump.exit_code, 0) << dump.describe();
  EXPECT_GT(count_of(dump.out, "PERF_RECORD_SWITCH"), 0u);
  EXPECT_GT(count_of(dump.out, "PERF_RECORD_NAMESPACES"), 0u);
}

// --latency (perf 6.15) is --switch-events for a per-task recording: the attrs perf 6.1 sets
// for --switch-events, and switch records that perf report reads.
TEST_F(RecordPerfOptions, LatencySetsTheAttrsOfPerfsSwitchEvents) {
  record(rec_, {"-e", "cpu-clock", "--latency"}, ours_, {"sh", "-c", "sleep 0.01; sleep 0.01"});
  record(perf_, {"-e", "cpu-clock", "--switch-events"}, theirs_,
         {"sh", "-c", "sleep 0.01; sleep 0.01"});
  EXPECT_EQ(decided_fields(ours_), decided_fields(theirs_));
  EXPECT_TRUE(decided_fields(ours_).contains("context_switch: 1"));
  test::command_result dump = test::run_command({"perf", "report", "-D", "-i", ours_}, 60s);
  ASSERT_EQ(dump.exit_code, 0) << dump.describe();
  EXPECT_GT(count_of(dump.out, "PERF_RECORD_SWITCH"), 0u);
}

TEST_F(RecordPerfOptions, NoBuildidLeavesTheBuildIdFeatureOut) {
  record(rec_, {"-e", "cpu-clock", "-B"}, ours_);
  record(perf_, {"-e", "cpu-clock", "-B"}, theirs_);
  for (const std::string& data : {ours_, theirs_}) {
    std::vector<std::string> missing = lines_with(header_of(data), "# missing features:");
    ASSERT_EQ(missing.size(), 1u);
    EXPECT_NE(missing[0].find(" BUILD_ID "), std::string::npos) << data << ": " << missing[0];
  }
}

TEST_F(RecordPerfOptions, OddRingSizesAreRoundedUpWithPerfsNote) {
  if (!rec_.is_arec()) GTEST_SKIP() << "arec's wording";
  for (const auto& [value, note] : std::vector<std::pair<std::string, std::string>>{
           {"3", "16K (4 pages)"}, {"12K", "16K (4 pages)"}, {"5,3", "32K (8 pages)"}}) {
    SCOPED_TRACE(value);
    test::command_result run = test::run_command(
        rec_.command({"-e", "cpu-clock", "-m", value, "-o", ours_, "--", "true"}), 60s);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_NE(run.err.find("arec: rounding mmap pages size to " + note + "\n"), std::string::npos)
        << run.err;
  }
}

// -m 1048576 (4 GiB a ring): the kernel maps no such ring (its page table would need more
// than one allocation gives). perf 6.1 then maps no data pages at all (the mask overflows its
// int) and records no sample, silently; arec records into the largest ring that maps, and
// says which size it took and why.
TEST_F(RecordPerfOptions, RingLargerThanTheKernelMapsFallsBackToTheLargestThatDoes) {
  std::vector<std::string> args{"-e", "cpu-clock", "-m", "1048576"};
  std::vector<std::string> workload{test_program("hot_loop"), "300"};
  record(perf_, args, theirs_, workload);
  EXPECT_EQ(run_perf_script(theirs_).samples.size(), 0u)
      << "perf 6.1 records no sample with -m 1048576 (docs/perf-options.md says so)";
  if (!rec_.is_arec()) GTEST_SKIP() << "arec's fallback";
  args.insert(args.end(), {"-o", ours_, "--"});
  args.insert(args.end(), workload.begin(), workload.end());
  test::command_result run = test::run_command(rec_.command(args), 120s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::smatch used;
  ASSERT_TRUE(std::regex_search(
      run.err, used,
      std::regex(R"(arec: warning: -m 1048576: the kernel maps no ring of 4G \(Cannot allocate )"
                 R"(memory\); using (\d+) pages \(\d+[KMG]\), the largest it maps\n)")))
      << run.err;
  std::uint64_t pages = std::stoull(used[1]);
  EXPECT_TRUE(pages < 1048576 && (pages & (pages - 1)) == 0) << pages;
  perf_script script = run_perf_script(ours_);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  EXPECT_GT(script.samples.size(), 10u) << "300 ms of cpu-clock at 4000 Hz";
}

TEST_F(RecordPerfOptions, StrictFreqRefusesAFrequencyAboveTheLimit) {
  std::ifstream limit_file("/proc/sys/kernel/perf_event_max_sample_rate");
  std::uint64_t limit = 0;
  ASSERT_TRUE(limit_file >> limit);
  const std::string above = std::to_string(limit * 2);
  for (const recorder& who : {rec_, perf_}) {
    test::command_result run = test::run_command(
        who.command({"-e", "cpu-clock", "-F", above, "--strict-freq", "-o", ours_, "--", "true"}),
        60s);
    EXPECT_NE(run.exit_code, 0) << who.describe() << ": " << run.describe();
  }
  if (!rec_.is_arec()) return;
  test::command_result run = test::run_command(
      rec_.command({"-e", "cpu-clock", "-F", above, "--strict-freq", "-o", ours_, "--", "true"}),
      60s);
  // The kernel may lower its limit meanwhile: the message names the limit arec read.
  EXPECT_TRUE(std::regex_match(
      run.err,
      std::regex("arec: error: maximum frequency rate \\(\\d+ Hz\\) exceeded by -F " + above +
                 " \\(--strict-freq\\): use a lower -F or raise "
                 "/proc/sys/kernel/perf_event_max_sample_rate\n")))
      << run.err;
}

// Seconds from the workload's exec to its first sample, from perf script's view of `data`.
std::optional<double> first_sample_after_exec(const std::string& data) {
  test::command_result script = test::run_command(
      {"perf", "script", "-i", data, "--show-task-events", "-F", "time,event"}, 60s);
  EXPECT_EQ(script.exit_code, 0) << script.describe();
  std::optional<double> exec_time, first_sample;
  std::size_t start = 0;
  while (start < script.out.size() && !first_sample) {
    std::size_t end = script.out.find('\n', start);
    std::string line = script.out.substr(start, end - start);
    start = end == std::string::npos ? script.out.size() : end + 1;
    double time = std::strtod(line.c_str(), nullptr);
    if (line.find("PERF_RECORD_COMM exec") != std::string::npos) exec_time = time;
    else if (exec_time && line.find("cpu-clock") != std::string::npos) first_sample = time;
  }
  if (!exec_time || !first_sample) return std::nullopt;
  return *first_sample - *exec_time;
}

// -D: nothing is sampled before the delay has passed since the workload's exec (a lower bound
// only: a busy machine may enable later, never earlier). arec times the delay from the exec;
// perf from the moment it releases the workload, before the exec, so its first sample can
// come earlier after the exec by as long as the exec took: only arec's bound is exact.
TEST_F(RecordPerfOptions, DelayStartsSamplingLater) {
  if (!rec_.is_arec()) GTEST_SKIP() << "perf times the delay from before the exec";
  record(rec_, {"-e", "cpu-clock", "-D", "300"}, ours_, {test_program("hot_loop"), "800"});
  std::optional<double> first = first_sample_after_exec(ours_);
  ASSERT_TRUE(first) << "no exec or no sample";
  EXPECT_GE(*first, 0.3);
}

TEST_F(RecordPerfOptions, DelayRangesSampleOnlyInTheirWindows) {
  test::command_result run = test::run_command(
      rec_.command({"-e", "cpu-clock", "-D", "100-200,400-500", "-o", ours_, "--",
                    test_program("hot_loop"), "800"}),
      60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::optional<double> first = first_sample_after_exec(ours_);
  ASSERT_TRUE(first) << "no exec or no sample";
  EXPECT_GE(*first, 0.1);
  if (!rec_.is_arec()) return;
  EXPECT_EQ(count_of(run.err, "arec: events enabled"), 2u) << run.err;
  EXPECT_EQ(count_of(run.err, "arec: events disabled"), 3u) << run.err;
}

TEST_F(RecordPerfOptions, DelayMinusOneSamplesNothingWithoutControl) {
  record(rec_, {"-e", "cpu-clock", "-D", "-1"}, ours_, {test_program("hot_loop"), "100"});
  test::command_result dump = test::run_command({"perf", "report", "-D", "-i", ours_}, 60s);
  ASSERT_EQ(dump.exit_code, 0) << dump.describe();
  EXPECT_EQ(count_of(dump.out, "PERF_RECORD_SAMPLE"), 0u);
  EXPECT_GT(count_of(dump.out, "PERF_RECORD_COMM"), 0u);
}

// "policy rt_priority" of a task, from fields 41 and 40 of /proc/PID/task/TID/stat.
std::pair<int, int> scheduling_of(const std::string& task_dir) {
  std::ifstream in(task_dir + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));  // after "pid (comm) "
  std::string field;
  int priority = -1, policy = -1;
  for (int number = 3; fields >> field; ++number) {
    if (number == 40) priority = std::stoi(field);
    if (number == 41) policy = std::stoi(field);
  }
  return {policy, priority};
}

std::string comm_of(const std::string& task_dir) {
  std::ifstream in(task_dir + "/comm");
  std::string comm;
  std::getline(in, comm);
  return comm;
}

// -r: the streaming threads run at SCHED_FIFO with the priority given; the control thread and
// the workload keep normal scheduling.
TEST_F(RecordPerfOptions, RealtimeRunsTheStreamingThreadsAtFifo) {
  if (!rec_.is_arec()) GTEST_SKIP() << "arec's streaming threads";
  test::child_process arec = test::child_process::spawn(rec_.command(
      {"-v", "-r", "7", "-e", "cpu-clock", "-o", ours_, "--", "sleep", "600"}));
  ASSERT_TRUE(arec.wait_for_stderr("arec: recording started", 60s));
  const std::string tasks = "/proc/" + std::to_string(arec.pid()) + "/task";
  std::size_t streaming = 0;
  for (const auto& task : std::filesystem::directory_iterator(tasks)) {
    std::string dir = task.path().string();
    std::pair<int, int> scheduling = scheduling_of(dir);
    if (comm_of(dir).starts_with("arec-stream-")) {
      ++streaming;
      EXPECT_EQ(scheduling, (std::pair{SCHED_FIFO, 7})) << dir;
    } else if (comm_of(dir) == "arec") {
      EXPECT_EQ(scheduling.first, SCHED_OTHER) << dir;
    }
  }
  EXPECT_EQ(streaming, 1u);
  std::ifstream children(tasks + "/" + std::to_string(arec.pid()) + "/children");
  pid_t workload = 0;
  ASSERT_TRUE(children >> workload);
  EXPECT_EQ(scheduling_of("/proc/" + std::to_string(workload)).first, SCHED_OTHER);
  arec.send_signal(SIGINT);  // ends the recording; the workload gets SIGTERM, as under perf
  test::command_result run = arec.wait(60s);
  EXPECT_FALSE(run.timed_out) << run.describe();
  test::command_result report = test::run_command({"perf", "report", "-i", ours_, "--stdio"});
  EXPECT_EQ(report.exit_code, 0) << report.describe();
}

// What a recording synthesized (time 0 in perf report -D): a COMM besides the workload's,
// any MMAP2, any FORK, the kernel's MMAP.
std::string synthesized_kinds(const std::string& data) {
  test::command_result dump = test::run_command({"perf", "report", "-D", "-i", data}, 60s);
  EXPECT_EQ(dump.exit_code, 0) << dump.describe();
  static const std::regex synthesized(R"(^(-?\d+ )?0 0x)");
  std::size_t comms = 0, mmap2s = 0, forks = 0, kernel_maps = 0;
  for (const std::string& line : lines_with(dump.out, "PERF_RECORD_")) {
    if (!std::regex_search(line, synthesized)) continue;
    comms += line.find("PERF_RECORD_COMM") != std::string::npos;
    mmap2s += line.find("PERF_RECORD_MMAP2") != std::string::npos;
    forks += line.find("PERF_RECORD_FORK") != std::string::npos;
    kernel_maps += line.find("PERF_RECORD_MMAP ") != std::string::npos;
  }
  return std::string(comms > 1 ? "tasks " : "") + (mmap2s > 0 ? "mmaps " : "") +
         (forks > 0 ? "forks " : "") + (kernel_maps > 0 ? "kernel" : "");
}

TEST_F(RecordPerfOptions, SynthChoosesWhatIsSynthesizedAsInPerf) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  for (const char* synth : {"no", "task", "mmap", "all", "cgroup"}) {
    SCOPED_TRACE(synth);
    record(rec_, {"-a", "-e", "cpu-clock", std::string("--synth=") + synth}, ours_);
    record(perf_, {"-a", "-e", "cpu-clock", std::string("--synth=") + synth}, theirs_);
    EXPECT_EQ(synthesized_kinds(ours_), synthesized_kinds(theirs_));
  }
}

}  // namespace
}  // namespace arec::e2e
