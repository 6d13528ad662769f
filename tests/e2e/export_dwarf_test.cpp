// `arec export` of `--call-graph dwarf` recordings: the user stacks are unwound from the sampled
// registers and stack copies, so a program built without frame pointers shows its callers, in
// the shares perf script and perf report give the same recording (perf unwinds it too).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "perf_report.hpp"
#include "perf_script.hpp"
#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// Whether the stack (leaf first) ends in `chain` (leaf first), as "main;call_major;hot_major"
// reads root first.
bool ends_in(const std::vector<script_frame>& frames, const std::vector<std::string>& chain) {
  if (frames.size() < chain.size()) return false;
  for (std::size_t i = 0; i < chain.size(); ++i)
    if (frames[i].symbol != chain[i]) return false;
  return true;
}

bool passes_through(const std::vector<script_frame>& frames, const std::string& symbol) {
  for (const script_frame& frame : frames)
    if (frame.symbol == symbol) return true;
  return false;
}

// Folded lines "comm;root;...;leaf COUNT": the summed counts of the stacks ending in `suffix`.
std::uint64_t folded_count(const std::string& folded, const std::string& suffix) {
  std::uint64_t total = 0;
  std::istringstream in(folded);
  for (std::string line; std::getline(in, line);) {
    auto space = line.rfind(' ');
    if (space == std::string::npos) continue;
    if (suffix.empty() || line.substr(0, space).ends_with(";" + suffix))
      total += std::stoull(line.substr(space + 1));
  }
  return total;
}

// hot_pair_without_fp recorded once for the suite with --call-graph dwarf by the recorder
// under test (arec, or perf with AREC_E2E_RECORDER), and what perf script unwinds from it.
class ExportDwarf : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::temp_dir;
    recorded_ = new test::command_result(test::run_command(recorder::from_environment().command(
        {"-o", data(), "-e", "cpu-clock", "-F", "1000", "--call-graph", "dwarf", "--",
         test_program("hot_pair_without_fp"), "800"})));
    script_ = new perf_script(run_perf_script(data()));
  }
  static void TearDownTestSuite() {
    delete script_;
    delete recorded_;
    delete dir_;
  }
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
    ASSERT_EQ(recorded_->exit_code, 0) << recorded_->describe();
    ASSERT_EQ(script_->run.exit_code, 0) << script_->run.describe();
    ASSERT_GE(script_->samples.size(), 200u) << script_->run.describe();
  }
  static std::string data() { return dir_->file("dwarf.data"); }
  // Samples perf script unwinds into `chain` (leaf first).
  static std::size_t perf_count(const std::vector<std::string>& chain) {
    std::size_t count = 0;
    for (const script_sample& sample : script_->samples)
      if (ends_in(sample.frames, chain)) ++count;
    return count;
  }
  // `command` in a mount namespace of its own where libdw.so.1 is an empty file, as if libdw1
  // were not installed (the dynamic loader refuses it); the host's file is untouched.
  static test::command_result without_libdw(const std::vector<std::string>& command) {
    std::string empty_file = dir_->file("empty_file");
    std::ofstream{empty_file}.flush();
    // The file the loader finds for libdw.so.1 (ldconfig's cache), covered by the empty one.
    const std::string cover =
        "lib=$(ldconfig -p | awk '$1 == \"libdw.so.1\" { print $NF; exit }') && [ -n \"$lib\" ] "
        "&& mount --bind \"$0\" \"$lib\" && exec \"$@\"";
    std::vector<std::string> argv{"unshare", "--mount", "--propagation", "private",
                                  "sh",      "-c",      cover,           empty_file};
    argv.insert(argv.end(), command.begin(), command.end());
    return test::run_command(argv, 120s);
  }
  // perf unwinds with libunwind here, arec with libdwfl: a sample whose stack one of them
  // cannot walk whole (the IP in a prologue, the vdso) may differ; no more than 1%.
  static double tolerance() { return 1.0 + 100.0 / static_cast<double>(script_->samples.size()); }

  static test::temp_dir* dir_;
  static test::command_result* recorded_;
  static perf_script* script_;
};
test::temp_dir* ExportDwarf::dir_ = nullptr;
test::command_result* ExportDwarf::recorded_ = nullptr;
perf_script* ExportDwarf::script_ = nullptr;

TEST_F(ExportDwarf, FoldedStacksHoldTheUnwoundCallersInPerfScriptsShares) {
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "--format=folded", "-q", "-i", data(), "-o", "-"});
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  double samples = static_cast<double>(script_->samples.size());
  EXPECT_EQ(folded_count(exported.out, ""), script_->samples.size()) << excerpt(exported.out);
  for (const std::vector<std::string>& chain : std::vector<std::vector<std::string>>{
           {"hot_major", "call_major", "main"}, {"hot_minor", "call_minor", "main"}}) {
    std::string folded = chain[2] + ";" + chain[1] + ";" + chain[0];
    std::size_t perf = perf_count(chain);
    // The program is built without frame pointers: only unwinding finds call_major.
    EXPECT_GT(perf, script_->samples.size() / 10) << folded << "\n" << excerpt(script_->run.out);
    double ours = 100.0 * static_cast<double>(folded_count(exported.out, folded)) / samples;
    EXPECT_NEAR(ours, 100.0 * static_cast<double>(perf) / samples, tolerance())
        << folded << "\n"
        << excerpt(exported.out);
  }
}

TEST_F(ExportDwarf, GoPprofShowsPerfReportsSelfSharesAndTheCallersCumulativeShares) {
  const std::string out = dir_->file("dwarf.pb.gz");
  test::command_result exported =
      test::run_command({arec_binary(), "export", "-q", "-i", data(), "-o", out});
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  test::command_result top = test::run_command(
      {"go", "tool", "pprof", "-top", "-cum", "-nodecount=1000", "-symbolize=none", out});
  ASSERT_EQ(top.exit_code, 0) << top.describe();
  std::map<std::string, double> flat = pprof_top_shares(top.out).flat;

  // Self: the leaf (samples in the kernel on top of it are not its own), as perf report
  // --no-children weighs it.
  perf_report report = run_perf_report(data());
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  double samples = static_cast<double>(script_->samples.size());
  for (const char* leaf : {"hot_major", "hot_minor"}) {
    double perf_share = 0;
    for (const report_row& row : report.rows)
      if (row.symbol == leaf) perf_share += row.percent;
    ASSERT_TRUE(flat.contains(leaf)) << leaf << "\n" << top.out;
    EXPECT_NEAR(flat[leaf], perf_share, tolerance()) << leaf << "\n" << top.out;
  }
  // Callers: the samples whose unwound stack passes through them, counted as perf script
  // lists them (pprof's sample count, not the periods).
  test::command_result counted =
      test::run_command({"go", "tool", "pprof", "-top", "-cum", "-nodecount=1000",
                         "-sample_index=cpu-clock_samples", "-symbolize=none", out});
  ASSERT_EQ(counted.exit_code, 0) << counted.describe();
  std::map<std::string, double> cum = pprof_top_shares(counted.out).cum;
  for (const char* caller : {"call_major", "call_minor", "main"}) {
    std::size_t perf = 0;
    for (const script_sample& sample : script_->samples)
      if (passes_through(sample.frames, caller)) ++perf;
    double perf_share = 100.0 * static_cast<double>(perf) / samples;
    EXPECT_GT(perf_share, 10.0) << caller << "\n" << excerpt(script_->run.out);
    ASSERT_TRUE(cum.contains(caller)) << caller << "\n" << counted.out;
    EXPECT_NEAR(cum[caller], perf_share, tolerance()) << caller << "\n" << counted.out;
  }
}

// libdw is loaded by the first --call-graph dwarf sample an export unwinds: without it arec
// still records and exports other samples, and the export that needs it says what is missing.
TEST_F(ExportDwarf, WithoutLibdwOnlyTheUnwindingFailsAndItNamesWhatIsMissing) {
  const std::string other = dir_->file("without-libdw.data");
  test::command_result recorded =
      without_libdw({arec_binary(), "-q", "-e", "cpu-clock", "-o", other, "--", "true"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  test::command_result plain = without_libdw(
      {arec_binary(), "export", "-q", "--format=folded", "-i", other, "-o", other + ".folded"});
  EXPECT_EQ(plain.exit_code, 0) << plain.describe();

  test::command_result unwound = without_libdw(
      {arec_binary(), "export", "-q", "--format=folded", "-i", data(), "-o", other + ".dwarf"});
  EXPECT_EQ(unwound.exit_code, 1) << unwound.describe();
  EXPECT_NE(unwound.err.find("--call-graph dwarf samples (elfutils' libdw, Debian: libdw1) needs "
                             "a shared library that cannot be loaded ("),
            std::string::npos)
      << unwound.describe();
  EXPECT_NE(unwound.err.find("libdw.so.1"), std::string::npos) << unwound.describe();
}

}  // namespace
}  // namespace arec::e2e
