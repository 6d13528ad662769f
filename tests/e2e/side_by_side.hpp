// side_by_side: the fixture of the tests that record one command line with arec and with perf
// record on this machine and compare what perf reads back from the two files.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {

class side_by_side_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  }

  // Records `args` -- `workload` with `who` into `data`; fails the test if it does not exit 0.
  void record(const recorder& who, std::vector<std::string> args, const std::string& data,
              std::vector<std::string> workload = {"true"}) {
    args.insert(args.end(), {"-q", "-o", data, "--"});
    args.insert(args.end(), workload.begin(), workload.end());
    std::vector<std::string> command = who.command(args);
    // perf mounts tracefs on the host for a tracepoint and leaves it there.
    if (own_mounts_)
      command.insert(command.begin(), {"unshare", "--mount", "--propagation", "private"});
    test::command_result run = test::run_command(command, std::chrono::seconds(60));
    ASSERT_EQ(run.exit_code, 0) << who.describe() << ": " << run.describe();
  }

  bool own_mounts_ = false;  // record in a mount namespace of the recording's own
  recorder rec_ = recorder::from_environment();
  recorder perf_ = recorder::reference_perf();
  test::temp_dir dir_;
  const std::string ours_ = dir_.file("ours.data"), theirs_ = dir_.file("theirs.data");
};

}  // namespace arec::e2e
