// arec archive's command line: perf archive's forms (`archive`, `archive FILE`) and arec's
// (-i, -o), the default output INPUT.tar.bz2, and bad arguments named in the message.
#include "cli/archive_command_line.hpp"

#include <gtest/gtest.h>

#include "base/usage_error.hpp"

namespace arec::cli {
namespace {

symbols::archive_options parse(std::vector<const char*> args) {
  auto parsed = parse_archive_command_line(args);
  EXPECT_TRUE(std::holds_alternative<symbols::archive_options>(parsed));
  return std::get<symbols::archive_options>(parsed);
}

std::string usage_error_of(std::vector<const char*> args) {
  try {
    parse_archive_command_line(args);
  } catch (const base::usage_error& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(ArchiveCommandLine, WithoutArgumentsArchivesPerfDataAsPerfArchiveDoes) {
  symbols::archive_options options = parse({});
  EXPECT_EQ(options.input, "perf.data");
  EXPECT_EQ(options.output, "perf.data.tar.bz2");
}

TEST(ArchiveCommandLine, TheRecordingIsAnArgumentOrDashI) {
  EXPECT_EQ(parse({"run.data"}).output, "run.data.tar.bz2");
  EXPECT_EQ(parse({"-i", "run.data"}).input, "run.data");
  EXPECT_EQ(parse({"-q", "run.data"}).input, "run.data");
  EXPECT_EQ(parse({"--input=dir/"}).output, "dir.tar.bz2");  // a data directory
  EXPECT_EQ(parse({"-i", "a.data", "-o", "/tmp/x.tar.bz2"}).output, "/tmp/x.tar.bz2");
}

TEST(ArchiveCommandLine, BadArgumentsAreNamed) {
  EXPECT_EQ(usage_error_of({"a.data", "b.data"}),
            "unexpected argument 'b.data' (arec archive takes one recording)");
  EXPECT_EQ(usage_error_of({"-i", "a.data", "b.data"}),
            "unexpected argument 'b.data' (arec archive takes one recording)");
  EXPECT_NE(usage_error_of({"-o", ""}).find("the output file name is empty"), std::string::npos);
  EXPECT_NE(usage_error_of({"--bogus"}).find("--bogus"), std::string::npos);
}

TEST(ArchiveCommandLine, HelpIsARequest) {
  auto parsed = parse_archive_command_line(std::vector<const char*>{"-h"});
  ASSERT_TRUE(std::holds_alternative<help_request>(parsed));
  EXPECT_NE(std::get<help_request>(parsed).text.find("Usage: arec archive"), std::string::npos);
}

}  // namespace
}  // namespace arec::cli
