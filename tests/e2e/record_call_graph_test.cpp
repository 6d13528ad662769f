// Call graphs (-g, --call-graph fp|dwarf): each hot_function sample carries the chain
// of its callers, so perf can show that caller_function called it.
#include <gtest/gtest.h>

#include <algorithm>

#include "perf_report.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

// Records hot_loop with `call_graph_args` and checks the chains of its hot samples.
void expect_callers_recorded(const std::vector<std::string>& call_graph_args) {
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("call-graph.data");
  std::vector<std::string> args = call_graph_args;
  for (std::string arg :
       {std::string("-o"), data, std::string("--"), test_program("hot_loop"), std::string("500")}) {
    args.push_back(arg);
  }
  test::command_result run = test::run_command(rec.command(args));
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();

  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  std::size_t hot = 0;
  std::size_t called_by_caller = 0;
  std::size_t reaching_main = 0;
  for (const script_sample& sample : script.samples) {
    if (sample.comm != "hot_loop" || !sampled_in(sample, "hot_function", "hot_loop")) continue;
    ++hot;
    if (sample.frames.size() > 1 && sample.frames[1].symbol == "caller_function") {
      ++called_by_caller;
    }
    if (std::any_of(sample.frames.begin(), sample.frames.end(),
                    [](const script_frame& frame) { return frame.symbol == "main"; })) {
      ++reaching_main;
    }
  }
  ASSERT_GE(hot, 50u) << "hot_function samples; perf script:\n" << excerpt(script.run.out);
  // A sample on hot_function's first instruction, before its frame exists, legitimately skips
  // its caller; those are rare, hence 90% rather than all.
  EXPECT_GE(called_by_caller, hot * 9 / 10)
      << called_by_caller << " of " << hot << " chains; perf script:\n"
      << excerpt(script.run.out);
  EXPECT_GE(reaching_main, hot * 9 / 10) << reaching_main << " of " << hot << " chains";

  perf_report report = run_perf_report(data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  // A dwarf sample copies 8 KiB of stack: under load a ring can overflow, which perf counts.
  EXPECT_FALSE(has_warning_besides_lost_chunks(report.run)) << report.run.err;
}

TEST(RecordCallGraph, DashGChainsShowCallerOfHotFunction) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  expect_callers_recorded({"-g"});
}

TEST(RecordCallGraph, CallGraphFpChainsShowCallerOfHotFunction) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  expect_callers_recorded({"--call-graph", "fp"});
}

}  // namespace
}  // namespace arec::e2e

namespace arec::e2e {
namespace {

// DWARF call graphs: perf unwinds the copied user stack, which needs the data mappings too.
TEST(RecordCallGraph, CallGraphDwarfChainsShowCallerOfHotFunction) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  expect_callers_recorded({"--call-graph", "dwarf"});
}

}  // namespace
}  // namespace arec::e2e
