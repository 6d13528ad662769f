// arec -g stacks completed from CFI (issue 40): frameless_calls spins in main -> driver -> stage
// -> leaf (a frameless -O1 leaf) and stage -> memchr (Debian's libc, no frame pointers), where
// a frame-pointer chain skips `stage`. arec's export names it as often as perf's
// --call-graph dwarf does, while perf reads arec's raw file as it reads its own -g file.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "arec_summary.hpp"
#include "hotspot_parse.hpp"
#include "perf_script.hpp"
#include "pprof_summary.hpp"
#include "pushed_windows.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "stand_in/stand_in_server.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

// Of the samples whose leaf frame is `leaf` (a prefix: memchr's variant is __memchr_evex or
// _avx2), how many name `caller` right above it.
struct caller_share {
  double total = 0, named = 0;
  double fraction() const { return total == 0 ? 0 : named / total; }
};

bool is_leaf(const std::string& frame, const std::string& leaf) {
  return frame == leaf || frame.starts_with("__" + leaf + "_");
}

caller_share folded_caller_share(const std::string& folded, const std::string& leaf,
                                 const std::string& caller) {
  caller_share share;
  std::istringstream lines{folded};
  for (std::string line; std::getline(lines, line);) {
    std::size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    std::vector<std::string> frames;
    std::istringstream stack{line.substr(0, space)};
    for (std::string frame; std::getline(stack, frame, ';');) frames.push_back(frame);
    if (frames.size() < 2 || !is_leaf(frames.back(), leaf)) continue;
    double count = std::stod(line.substr(space + 1));
    share.total += count;
    if (frames[frames.size() - 2] == caller) share.named += count;
  }
  return share;
}

caller_share script_caller_share(const std::vector<script_sample>& samples, const std::string& leaf,
                                 const std::string& caller) {
  caller_share share;
  for (const script_sample& sample : samples) {
    if (sample.frames.size() < 2 || !is_leaf(sample.frames[0].symbol, leaf)) continue;
    share.total += 1;
    if (sample.frames[1].symbol == caller) share.named += 1;
  }
  return share;
}

// A named frame right above itself: what a DWARF unwind after the frame-pointer chain, or a
// completion that inserted a caller the chain had, would write (frameless_calls has no
// recursion). Unnamed frames are left out: where rbp holds no frame pointer (in libc, as the
// process starts or exits) the kernel's walk may read one junk word again and again (a chain
// of 127 frames at address 1), in perf's own -g files too.
bool repeats_a_frame(const script_sample& sample) {
  for (std::size_t i = 1; i < sample.frames.size(); ++i)
    if (sample.frames[i].ip == sample.frames[i - 1].ip && sample.frames[i].symbol != "[unknown]")
      return true;
  return false;
}

// The sample's frames, one "ip symbol" line each, for a failure's message.
std::string frames_of(const script_sample& sample) {
  std::ostringstream out;
  for (const auto& frame : sample.frames) out << std::hex << frame.ip << ' ' << frame.symbol << '\n';
  return out.str();
}

class CompletedFpStacks : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::temp_dir;
    std::vector<std::string> workload{"--", test_program("frameless_calls"), "cpu", "1.5"};
    auto record = [&](const recorder& with, std::vector<std::string> args) {
      args.insert(args.end(), workload.begin(), workload.end());
      return new test::command_result(test::run_command(with.command(args)));
    };
    arec_ = record(recorder(arec_binary(), false), {"-F", "2000", "-g", "-o", file("arec-g")});
    perf_fp_ = record(recorder::reference_perf(), {"-F", "2000", "-g", "-o", file("perf-g")});
    perf_dwarf_ = record(recorder::reference_perf(),
                         {"-F", "2000", "--call-graph", "dwarf", "-o", file("perf-dwarf")});
  }
  static void TearDownTestSuite() {
    delete arec_;
    delete perf_fp_;
    delete perf_dwarf_;
    delete dir_;
  }
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
    ASSERT_EQ(arec_->exit_code, 0) << arec_->describe();
    ASSERT_EQ(perf_fp_->exit_code, 0) << perf_fp_->describe();
    ASSERT_EQ(perf_dwarf_->exit_code, 0) << perf_dwarf_->describe();
  }
  static std::string file(const std::string& name) { return dir_->file(name + ".data"); }
  static std::string exported(const std::vector<std::string>& extra) {
    std::vector<std::string> command{arec_binary(), "export", "-i", file("arec-g")};
    command.insert(command.end(), extra.begin(), extra.end());
    test::command_result run = test::run_command(command);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    last_export_err_ = run.err;
    return run.out;
  }

  static test::temp_dir* dir_;
  static test::command_result *arec_, *perf_fp_, *perf_dwarf_;
  static std::string last_export_err_;
};
test::temp_dir* CompletedFpStacks::dir_ = nullptr;
test::command_result* CompletedFpStacks::arec_ = nullptr;
test::command_result* CompletedFpStacks::perf_fp_ = nullptr;
test::command_result* CompletedFpStacks::perf_dwarf_ = nullptr;
std::string CompletedFpStacks::last_export_err_;

TEST_F(CompletedFpStacks, ExportNamesTheCallerOfTheLeafAndOfLibcAsDwarfUnwindingDoes) {
  perf_script reference = run_perf_script(file("perf-dwarf"));
  ASSERT_EQ(reference.run.exit_code, 0) << reference.run.describe();
  std::string folded = exported({"--format=folded", "-o", "-"});
  for (const char* leaf : {"leaf", "memchr"}) {
    caller_share dwarf = script_caller_share(reference.samples, leaf, "stage");
    caller_share ours = folded_caller_share(folded, leaf, "stage");
    ASSERT_GE(dwarf.total, 10) << leaf << "\n" << excerpt(reference.run.out);
    ASSERT_GE(ours.total, 10) << leaf << "\n" << excerpt(folded);
    EXPECT_GE(dwarf.fraction(), 0.95) << leaf;
    EXPECT_GE(ours.fraction(), 0.95) << leaf << "\n" << excerpt(folded);
  }
}

TEST_F(CompletedFpStacks, PerfReadsTheRawFileAsItReadsItsOwnFramePointerFile) {
  perf_script ours = run_perf_script(file("arec-g"));
  perf_script theirs = run_perf_script(file("perf-g"));
  ASSERT_EQ(ours.run.exit_code, 0) << ours.run.describe();
  ASSERT_EQ(theirs.run.exit_code, 0) << theirs.run.describe();
  std::optional<arec_summary> summary = find_arec_summary(arec_->err);
  ASSERT_TRUE(summary) << arec_->describe();
  EXPECT_EQ(ours.samples.size(), summary->samples);  // nothing dropped for the stack copy
  for (const script_sample& sample : ours.samples)
    ASSERT_FALSE(repeats_a_frame(sample)) << frames_of(sample);  // no DWARF post-unwind
  // The raw file holds the chains frame pointers give: the leaf's caller skipped, as in perf's.
  for (const char* leaf : {"leaf", "memchr"}) {
    caller_share arec_driver = script_caller_share(ours.samples, leaf, "driver");
    caller_share perf_driver = script_caller_share(theirs.samples, leaf, "driver");
    ASSERT_GE(arec_driver.total, 10) << leaf;
    EXPECT_GE(perf_driver.fraction(), 0.95) << leaf;
    EXPECT_GE(arec_driver.fraction(), 0.95) << leaf;
  }
}

TEST_F(CompletedFpStacks, PprofCarriesTheCompletedStacks) {
  std::string folded = exported({"--format=folded", "-o", "-"});
  std::string summary_err = last_export_err_;
  EXPECT_NE(summary_err.find("exported"), std::string::npos) << summary_err;
  // The same samples through pprof: go tool pprof -traces lists each stack leaf first.
  std::string pprof = dir_->file("arec-g.pb.gz");
  exported({"-o", pprof});
  test::command_result traces =
      test::run_command({"go", "tool", "pprof", "-traces", "-symbolize=none", pprof});
  ASSERT_EQ(traces.exit_code, 0) << traces.describe();
  // A trace's first frame line is "VALUE   leaf", its caller's the next line.
  std::size_t leaf_traces = 0, with_stage = 0;
  std::istringstream lines{traces.out};
  for (std::string line; std::getline(lines, line);) {
    if (!line.ends_with(" leaf") || line.find_first_not_of(' ') == line.rfind(" leaf") + 1)
      continue;
    ++leaf_traces;
    std::string next;
    if (std::getline(lines, next) && next.ends_with(" stage")) ++with_stage;
  }
  ASSERT_GE(leaf_traces, 1u) << excerpt(traces.out);
  EXPECT_EQ(with_stage, leaf_traces) << excerpt(traces.out);
}

// arec convert writes the completed chains: perf script and hotspot's parser name the caller.
TEST_F(CompletedFpStacks, ConvertWritesTheCompletedChainsForPerfAndHotspot) {
  std::string converted = dir_->file("converted.data");
  test::command_result convert =
      test::run_command({arec_binary(), "convert", "-i", file("arec-g"), "-o", converted});
  ASSERT_EQ(convert.exit_code, 0) << convert.describe();
  EXPECT_NE(convert.err.find("frame-pointer stacks completed from CFI"), std::string::npos)
      << convert.err;
  perf_script script = run_perf_script(converted);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  std::optional<arec_summary> summary = find_arec_summary(arec_->err);
  ASSERT_TRUE(summary) << arec_->describe();
  EXPECT_EQ(script.samples.size(), summary->samples);
  double leaves = 0;
  for (const char* leaf : {"leaf", "memchr"}) {
    caller_share share = script_caller_share(script.samples, leaf, "stage");
    ASSERT_GE(share.total, 10) << leaf << "\n" << excerpt(script.run.out);
    EXPECT_GE(share.fraction(), 0.95) << leaf << "\n" << excerpt(script.run.out);
    leaves += share.total;
  }
  for (const script_sample& sample : script.samples)
    ASSERT_FALSE(repeats_a_frame(sample)) << frames_of(sample);

  if (!std::ifstream{hotspot_parser_path})
    GTEST_SKIP() << hotspot_parser_path << " is not installed (hotspot)";
  std::string error;
  std::optional<test::perfparser_totals> totals =
      hotspot_totals(converted, dir_->file("converted.stream"), error);
  ASSERT_TRUE(totals) << error;
  auto stage = totals->symbols.find({"cpu-clock", "stage"});
  ASSERT_NE(stage, totals->symbols.end());
  // hotspot's inclusive cost of stage holds (nearly) every leaf and memchr sample.
  EXPECT_GE(static_cast<double>(stage->second.inclusive_samples), 0.95 * leaves);
}

// --push windows (to the stand-in Pyroscope) carry the completed stacks too: the window
// exporter completes each sample as export does.
TEST(CompletedFpPush, PushedWindowsNameTheCallerOfTheLeaf) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  test::stand_in_server server;
  test::temp_dir dir;
  test::command_result run = test::run_command(push_command(
      "pyroscope", server.url(),
      {"-F", "1000", "-g", "--", test_program("frameless_calls"), "cpu", "2.5"}));
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  long long leaves = 0, with_stage = 0;
  for (const test::received_push& push : server.received()) {
    window_check window = check_window("pyroscope", push, dir.file("window.pb.gz"), "leaf");
    leaves += window.hot;
    with_stage += std::max(0LL, json_number(window.summary, "stage"));
  }
  ASSERT_GE(leaves, 100) << run.describe();
  EXPECT_GE(static_cast<double>(with_stage), 0.95 * static_cast<double>(leaves));
}

}  // namespace
}  // namespace arec::e2e
