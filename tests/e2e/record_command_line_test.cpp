// Command-line errors: an unknown option is a usage error that names the option and records
// nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

TEST(RecordCommandLine, RejectsUnknownOptionNamingIt) {
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("never.data");

  test::command_result run = test::run_command(rec.command({"--bogus", "-o", data, "--", "true"}));
  EXPECT_EQ(run.exit_code, rec.usage_error_status()) << rec.describe() << ": " << run.describe();
  EXPECT_NE(run.err.find("bogus"), std::string::npos) << run.err;
  if (rec.is_arec()) {
    // perf words it "unknown option `bogus'"; arec names the option as the user typed it.
    EXPECT_TRUE(run.err.starts_with("arec: error: ")) << run.err;
    EXPECT_NE(run.err.find("--bogus"), std::string::npos) << run.err;
  }
  struct stat info;
  EXPECT_NE(::stat(data.c_str(), &info), 0) << "a rejected command line must not create " << data;
}

}  // namespace
}  // namespace arec::e2e
