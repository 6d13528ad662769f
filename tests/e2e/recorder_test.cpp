// Which arec the end-to-end tests run: the one built with them, or the one the environment
// names (the sanitizer configurations run the release test program against their own arec).
#include "recorder.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>

namespace arec::e2e {
namespace {

// Sets (or, with nullopt, unsets) an environment variable for one test and restores it after.
class scoped_environment {
 public:
  scoped_environment(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~scoped_environment() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  scoped_environment(const scoped_environment&) = delete;
  scoped_environment& operator=(const scoped_environment&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Recorder, TheArecTheEnvironmentNamesRecordsConvertsAndExports) {
  scoped_environment arec{"AREC_E2E_AREC", "/opt/sanitized/arec"};
  scoped_environment recorder_choice{"AREC_E2E_RECORDER", std::nullopt};
  EXPECT_EQ(arec_binary(), "/opt/sanitized/arec");
  auto rec = recorder::from_environment();
  EXPECT_TRUE(rec.is_arec());
  EXPECT_EQ(rec.command({"-q"}).front(), "/opt/sanitized/arec");
}

TEST(Recorder, AnEmptyChoiceRunsTheArecBuiltWithTheTests) {
  std::string built;
  {
    scoped_environment arec{"AREC_E2E_AREC", std::nullopt};
    built = arec_binary();
  }
  scoped_environment arec{"AREC_E2E_AREC", ""};
  EXPECT_EQ(arec_binary(), built);
  EXPECT_NE(built, "");
}

TEST(Recorder, PerfChosenAsRecorderStillConvertsWithTheChosenArec) {
  scoped_environment arec{"AREC_E2E_AREC", "/opt/sanitized/arec"};
  scoped_environment recorder_choice{"AREC_E2E_RECORDER", "/usr/bin/perf"};
  EXPECT_FALSE(recorder::from_environment().is_arec());
  EXPECT_EQ(arec_binary(), "/opt/sanitized/arec");
}

TEST(Recorder, TheEnvironmentSaysWhenTheArecIsSanitized) {
  scoped_environment sanitized{"AREC_E2E_SANITIZED", "1"};
  EXPECT_TRUE(arec_is_sanitized());
}

#ifndef AREC_TESTS_SANITIZED
TEST(Recorder, AReleaseArecIsNotSanitized) {
  scoped_environment sanitized{"AREC_E2E_SANITIZED", std::nullopt};
  EXPECT_FALSE(arec_is_sanitized());
}
#endif

}  // namespace
}  // namespace arec::e2e
