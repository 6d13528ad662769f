// Native frames named on a stock host (issue 42): the vdso as perf names it, code without
// symbols grouped per function, MiniDebugInfo. Each test records a real program and checks
// `arec export` (and --push, perf report) against perf's own reading of the same file.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "perf_script.hpp"
#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "pushed_windows.hpp"
#include "recorder.hpp"
#include "stand_in/stand_in_server.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

// The samples of folded stacks whose leaf frame is exactly `name`, and all of them.
struct leaf_count {
  long long named = 0;
  long long total = 0;
};
leaf_count folded_leaves(const std::string& folded, const std::string& name) {
  leaf_count count;
  std::istringstream lines{folded};
  for (std::string line; std::getline(lines, line);) {
    std::size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    long long samples = std::stoll(line.substr(space + 1));
    std::string stack = line.substr(0, space);
    count.total += samples;
    if (stack.substr(stack.rfind(';') + 1) == name) count.named += samples;
  }
  return count;
}

std::string export_folded(const std::string& data) {
  test::command_result folded =
      test::run_command({arec_binary(), "export", "--format=folded", "-i", data, "-o", "-"});
  EXPECT_EQ(folded.exit_code, 0) << folded.describe();
  return folded.out;
}

void record(const std::string& data, std::vector<std::string> workload) {
  std::vector<std::string> command{arec_binary(), "-q", "-e", "cpu-clock", "-g", "-o", data, "--"};
  command.insert(command.end(), workload.begin(), workload.end());
  test::command_result recorded = test::run_command(command);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
}

// libc's clock_gettime calls the vdso's; perf script names that frame __vdso_clock_gettime
// ([vdso]) and arec export must name exactly the same samples so.
TEST(ExportNativeNames, TheVdsoIsNamedAsPerfNamesIt) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  const std::string data = dir.file("clock.data");
  record(data, {test_program("clock_loop"), "600"});
  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  long long perf_named = 0;
  for (const script_sample& sample : script.samples)
    if (sampled_in(sample, "__vdso_clock_gettime", "[vdso]")) ++perf_named;
  ASSERT_GT(perf_named, 0) << excerpt(script.run.out);
  leaf_count arec = folded_leaves(export_folded(data), "__vdso_clock_gettime");
  EXPECT_EQ(arec.named, perf_named) << "of " << arec.total << " samples";
}

TEST(ExportNativeNames, TheVdsoIsNamedInPushedWindows) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  test::stand_in_server server;
  test::command_result run = test::run_command(
      push_command("pyroscope", server.url(), {"--", test_program("clock_loop"), "1500"}));
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  long long named = 0;
  for (const test::received_push& push : server.received()) {
    ASSERT_EQ(push.profiles.size(), 1u);
    std::ofstream(dir.file("window.pb.gz"), std::ios::binary) << push.profiles.front();
    test::command_result decoded =
        npm_pprof_summary(dir.file("window.pb.gz"), "__vdso_clock_gettime");
    ASSERT_EQ(decoded.exit_code, 0) << decoded.describe();
    named += json_number(decoded.out, "leafMatches");
  }
  EXPECT_GT(named, 0) << run.describe();
}

}  // namespace
}  // namespace arec::e2e
