// `arec export` of a process that named itself: a comm is the process's to choose
// (prctl(PR_SET_NAME), no privilege), so one that is not UTF-8 must leave the pprof and the OTLP
// request readable by protobuf's own parser (protoc here; Go's servers refuse the same), and one
// that looks like folded-stack syntax must add no frame, line or count.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

// Records named_loop, named `comm`, into `data`.
void record_named(const std::string& comm, const std::string& data) {
  test::command_result recorded =
      test::run_command({arec_binary(), "-q", "-e", "cpu-clock", "-g", "-o", data, "--",
                         test_program("named_loop"), comm, "300"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
}

TEST(ExportNames, ACommThatIsNotUtf8LeavesThePprofAndTheOtlpRequestReadable) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  const std::string data = dir.file("named.data");
  record_named("\xff", data);

  test::command_result pprof =
      test::run_command({arec_binary(), "export", "-i", data, "-o", dir.file("named.pb.gz")});
  ASSERT_EQ(pprof.exit_code, 0) << pprof.describe();
  test::command_result profile = protoc_decode(dir.file("named.pb.gz"), protoc_message::pprof);
  ASSERT_EQ(profile.exit_code, 0) << profile.describe();
  // U+FFFD in place of the byte, as protoc prints it (octal escapes) or as it is.
  EXPECT_TRUE(profile.out.find(R"(string_table: "\357\277\275")") != std::string::npos ||
              profile.out.find("string_table: \"\xef\xbf\xbd\"") != std::string::npos)
      << profile.out.substr(0, 4000);

  test::command_result otlp = test::run_command(
      {arec_binary(), "export", "--format=otlp", "-i", data, "-o", dir.file("named.otlp.pb")});
  ASSERT_EQ(otlp.exit_code, 0) << otlp.describe();
  test::command_result request =
      protoc_decode(dir.file("named.otlp.pb"), protoc_message::otlp_request);
  EXPECT_EQ(request.exit_code, 0) << request.describe();
}

TEST(ExportNames, ACommWithFoldedSyntaxAddsNoFrameLineOrCount) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  const std::string data = dir.file("named.data");
  record_named("x;a\nb 7", data);
  test::command_result folded =
      test::run_command({arec_binary(), "export", "--format=folded", "-i", data, "-o", "-"});
  ASSERT_EQ(folded.exit_code, 0) << folded.describe();
  std::istringstream lines(folded.out);
  const std::regex stack_and_count(R"([^ ].* [0-9]+)");
  bool named = false;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(std::regex_match(line, stack_and_count)) << "a line of its own: " << line;
    named = named || line.starts_with("x:a?b 7;");
  }
  EXPECT_TRUE(named) << folded.out;
}

}  // namespace
}  // namespace arec::e2e
