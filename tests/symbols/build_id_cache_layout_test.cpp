// build_id_cache_layout: where the cache is (perfconfig's buildid.dir over $HOME/.debug, as
// perf 6.1 finds it) and how its links and directories are named.
#include "symbols/build_id_cache_layout.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "support/temp_dir.hpp"

namespace arec::symbols {
namespace {

class DefaultBuildIdDir : public ::testing::Test {
 protected:
  void SetUp() override {
    save("HOME", home_);
    save("PERF_BUILDID_DIR", buildid_dir_);
    ::setenv("HOME", dir_.path().c_str(), 1);
    ::unsetenv("PERF_BUILDID_DIR");
  }
  void TearDown() override {
    restore("HOME", home_);
    restore("PERF_BUILDID_DIR", buildid_dir_);
  }
  static void save(const char* name, std::optional<std::string>& into) {
    if (const char* value = std::getenv(name)) into = value;
  }
  static void restore(const char* name, const std::optional<std::string>& value) {
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  test::temp_dir dir_;
  std::optional<std::string> home_, buildid_dir_;
};

TEST_F(DefaultBuildIdDir, HomeDebugByDefault) {
  if (std::ifstream{"/etc/perfconfig"}) GTEST_SKIP() << "/etc/perfconfig may name a directory";
  EXPECT_EQ(default_build_id_dir(), dir_.path() + "/.debug");
}

TEST_F(DefaultBuildIdDir, PerfconfigBuildidDirOverridesHome) {
  std::ofstream{dir_.file(".perfconfig")} << "[report]\n\tdir = wrong\n"
                                          << "[buildid]\n\tdir = \"/srv/cache\" # comment\n";
  EXPECT_EQ(default_build_id_dir(), "/srv/cache");
}

// perf 6.1 writes $PERF_BUILDID_DIR for its scripts and never reads it: neither does arec, so
// the cache it fills is the one perf report reads.
TEST_F(DefaultBuildIdDir, TheEnvironmentVariableIsNotReadAsPerfDoesNotReadIt) {
  std::ofstream{dir_.file(".perfconfig")} << "[buildid]\ndir = /srv/cache\n";
  ::setenv("PERF_BUILDID_DIR", "/env/cache", 1);
  EXPECT_EQ(default_build_id_dir(), "/srv/cache");
  std::filesystem::remove(dir_.file(".perfconfig"));
  if (std::ifstream{"/etc/perfconfig"}) return;  // it may name a directory
  EXPECT_EQ(default_build_id_dir(), dir_.path() + "/.debug");
}

TEST(BuildIdCacheLayout, NamesLinksAndObjectDirectoriesAsPerfDoes) {
  std::string hex = "0123456789abcdef0123456789abcdef01234567";
  EXPECT_EQ(build_id_link_path("/c", hex),
            "/c/.build-id/01/23456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(build_id_object_dir("/c", "/usr/bin/ls", hex), "/c/usr/bin/ls/" + hex);
  EXPECT_EQ(build_id_object_dir("/c", "[vdso]", hex), "/c/[vdso]/" + hex);
  EXPECT_EQ(build_id_link_target("/usr/bin/ls", hex), "../../usr/bin/ls/" + hex);
  EXPECT_EQ(build_id_link_target("[kernel.kallsyms]", hex), "../../[kernel.kallsyms]/" + hex);
}

}  // namespace
}  // namespace arec::symbols
