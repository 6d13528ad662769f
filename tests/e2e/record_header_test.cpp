// Header features a reader shows as they are: `perf report --header-only` of arec's file reads
// as that of perf record's for the same command.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// The "# cmdline : ..." line of `perf report --header-only`, without the prefix.
std::string cmdline_of(const std::string& data) {
  test::command_result header = test::run_command({"perf", "report", "--header-only", "-i", data});
  EXPECT_EQ(header.exit_code, 0) << header.describe();
  const std::string prefix = "# cmdline : ";
  std::size_t at = header.out.find(prefix);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no cmdline in the header:\n" << header.out;
    return {};
  }
  at += prefix.size();
  return header.out.substr(at, header.out.find('\n', at) - at);
}

// perf writes the recorder's absolute path once, then its arguments (perf's start at "record").
TEST(RecordHeader, CmdlineIsTheExecutableOnceThenTheArguments) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string out = dir.file("rec.data");
  std::vector<std::string> command =
      rec.command({"-q", "-e", "cpu-clock", "-o", out, "--", "true"});
  test::command_result run = test::run_command(command, 60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();

  std::string expected = std::filesystem::canonical(command[0]).string();
  for (std::size_t i = 1; i < command.size(); ++i) expected += " " + command[i];
  expected += ' ';  // perf prints a blank after every argument
  EXPECT_EQ(cmdline_of(out), expected) << rec.describe();
}

}  // namespace
}  // namespace arec::e2e
