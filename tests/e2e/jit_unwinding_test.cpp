// --call-graph dwarf through JIT code that keeps no frame pointer (issue 43, item 3):
// jit_frameless runs main -> jit_frameless_step (JIT code in anonymous memory, named by its
// jitdump) -> hot_leaf. With the dump's UNWINDING_INFO, arec export and hotspot's parser (on the
// converted file) find main above the JIT frame, and so does perf script on the converted file;
// without it, a frame-pointer step from the JIT frame goes to main's caller (libdw), or the walk
// ends there (perf's libunwind), and main is lost: the information is what finds it. Its
// DEBUG_INFO record gives the JIT frame a source line in the pprof.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hotspot_parse.hpp"
#include "perf_script.hpp"
#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

constexpr const char* full_stack = ";main;jit_frameless_step;hot_leaf";

// Of the folded stacks that end in hot_leaf, the share that run through main and the JIT frame.
double through_main(const std::string& folded, double& in_leaf) {
  double named = 0;
  in_leaf = 0;
  std::istringstream lines{folded};
  for (std::string line; std::getline(lines, line);) {
    std::size_t space = line.rfind(' ');
    if (space == std::string::npos || !line.substr(0, space).ends_with(";hot_leaf")) continue;
    double count = std::stod(line.substr(space + 1));
    in_leaf += count;
    if (line.substr(0, space).ends_with(full_stack)) named += count;
  }
  return in_leaf == 0 ? 0 : named / in_leaf;
}

// Each recording is made once, when a test first needs it (ctest runs one test a process).
class JitUnwindingInfo : public ::testing::TestWithParam<bool> {
 protected:
  static void SetUpTestSuite() { dir_ = new test::temp_dir; }
  static void TearDownTestSuite() {
    for (test::command_result*& recorded : recorded_) delete std::exchange(recorded, nullptr);
    delete std::exchange(dir_, nullptr);
  }
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
    bool with_cfi = GetParam();
    if (!recorded_[with_cfi]) {
      std::string program = "cd " + dir_->path() + " && exec " + test_program("jit_frameless") +
                            (with_cfi ? " cfi 0.5" : " nocfi 0.5");
      recorded_[with_cfi] = new test::command_result(test::run_command(
          recorder::from_environment().command({"-q", "-e", "cpu-clock", "--call-graph", "dwarf",
                                                "-o", data(with_cfi), "--", "sh", "-c", program}),
          120s));
    }
    ASSERT_EQ(recorded_[with_cfi]->exit_code, 0) << recorded_[with_cfi]->describe();
  }
  static std::string data(bool with_cfi) {
    return dir_->file(with_cfi ? "cfi.data" : "nocfi.data");
  }

  static test::temp_dir* dir_;
  static test::command_result* recorded_[2];
};
test::temp_dir* JitUnwindingInfo::dir_ = nullptr;
test::command_result* JitUnwindingInfo::recorded_[2] = {};

TEST_P(JitUnwindingInfo, ExportFindsMainAboveFramelessJitCodeOnlyThroughIt) {
  bool with_cfi = GetParam();
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "--format=folded", "-i", data(with_cfi), "-o", "-"}, 120s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  double in_leaf = 0;
  double share = through_main(exported.out, in_leaf);
  ASSERT_GE(in_leaf, 20) << exported.out.substr(0, 3000);
  if (with_cfi)
    EXPECT_GT(share, 0.9) << exported.out.substr(0, 3000);
  else
    EXPECT_LT(share, 0.1) << "a frame-pointer step skips main\n" << exported.out.substr(0, 3000);
}

// The dump's DEBUG_INFO gives the JIT frame its source line: the call's, line 8, in the pprof
// (the return address less one is in the call).
TEST_P(JitUnwindingInfo, TheJitFrameCarriesItsSourceLineInThePprof) {
  std::string profile = dir_->file(GetParam() ? "cfi.pb.gz" : "nocfi.pb.gz");
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "-q", "--format=pprof", "-i", data(GetParam()), "-o", profile},
      120s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  test::command_result summary = npm_pprof_summary(profile, "hot_leaf");
  ASSERT_EQ(summary.exit_code, 0) << summary.describe();
  long long in_leaf = json_number(summary.out, "leafMatches");
  ASSERT_GE(in_leaf, 20) << summary.out;
  EXPECT_GE(json_number(summary.out, "/srv/jit/step.src:8"), in_leaf * 9 / 10) << summary.out;
}

TEST_P(JitUnwindingInfo, PerfAndHotspotFindMainAboveFramelessJitCodeOnlyThroughIt) {
  bool with_cfi = GetParam();
  std::string converted = dir_->file(with_cfi ? "cfi-converted.data" : "nocfi-converted.data");
  std::string stream = converted + ".stream";
  std::string home = dir_->file("home");
  // The test's own HOME: the build-id cache arec convert writes and hotspot reads is in it.
  std::vector<std::string> at_home{"env", "-u", "PERF_BUILDID_DIR", "HOME=" + home};
  auto run = [&](std::vector<std::string> command) {
    command.insert(command.begin(), at_home.begin(), at_home.end());
    test::command_result result = test::run_command(command, 120s);
    EXPECT_EQ(result.exit_code, 0) << result.describe();
    return result;
  };
  test::command_result conversion = run({arec_binary(), "convert", "-i", data(with_cfi), "-o", converted});
  EXPECT_EQ(conversion.err.find("warning"), std::string::npos) << conversion.err;
  // perf 6.1 (built with libunwind) reads the frames through the converted file's mapping of
  // the JIT code's ELF.
  test::command_result script =
      run({"/usr/bin/perf", "script", "-F", "comm,tid,ip,sym,dso", "-i", converted});
  double in_leaf = 0, through = 0;
  for (const script_sample& sample : parse_perf_script(script.out)) {
    const auto& frames = sample.frames;
    if (frames.empty() || frames[0].symbol != "hot_leaf") continue;
    ++in_leaf;
    if (frames.size() > 2 && frames[1].symbol == "jit_frameless_step" && frames[2].symbol == "main")
      ++through;
  }
  ASSERT_GE(in_leaf, 20) << excerpt(script.out);
  if (with_cfi)
    EXPECT_GT(through, 0.9 * in_leaf) << excerpt(script.out);
  else
    EXPECT_LT(through, 0.1 * in_leaf) << excerpt(script.out);

  run({hotspot_parser_path, "--input", converted, "--output", stream});
  std::ifstream in(stream, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string error;
  std::optional<test::perfparser_totals> totals =
      test::read_perfparser_stream(std::as_bytes(std::span{bytes}), error);
  ASSERT_TRUE(totals) << error;
  const auto& symbols = totals->symbols;
  auto leaf = symbols.find({"cpu-clock", "hot_leaf"});
  auto jit = symbols.find({"cpu-clock", "jit_frameless_step"});
  auto main = symbols.find({"cpu-clock", "main"});
  ASSERT_NE(leaf, symbols.end());
  ASSERT_GE(leaf->second.self_samples, 20u);
  ASSERT_NE(jit, symbols.end()) << "the JIT frame is named";
  EXPECT_GE(jit->second.inclusive_samples, leaf->second.self_samples * 9 / 10);
  std::uint64_t in_main = main == symbols.end() ? 0 : main->second.inclusive_samples;
  if (with_cfi)
    EXPECT_GE(in_main, leaf->second.self_samples * 9 / 10);
  else
    EXPECT_LT(in_main, leaf->second.self_samples / 10) << "a frame-pointer step skips main";
}

INSTANTIATE_TEST_SUITE_P(WithAndWithout, JitUnwindingInfo, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Cfi" : "NoCfi"; });

}  // namespace
}  // namespace arec::e2e
