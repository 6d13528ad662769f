// The build-id cache: a recording still resolves after its binary is rebuilt at the same path,
// because the recorder put the binary in the cache ($HOME/.debug) under its build-id; with -N it
// does not; and the cache lists what perf record's lists. HOME is a temporary directory in
// every command here, so the machine's own ~/.debug is never touched.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "env_command.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// A fixed amount of work in one named function: enough cpu-clock samples, no timing.
constexpr const char* program_source = R"(
volatile unsigned long sink;
__attribute__((noinline)) void cache_test_spin(unsigned long rounds) {
  for (unsigned long i = 0; i < rounds; ++i) sink += i * VARIANT;
}
int main(void) { cache_test_spin(150000000UL); return 0; }
)";

class RecordBuildIdCache : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
    std::ofstream{dir_.file("prog.c")} << program_source;
  }
  // (Re)builds the program at the same path; each variant has its own build-id.
  void build(int variant) {
    test::command_result built =
        test::run_command({"cc", "-O1", "-DVARIANT=" + std::to_string(variant), "-o", program(),
                           dir_.file("prog.c")});
    ASSERT_EQ(built.exit_code, 0) << built.describe();
  }
  std::string program() const { return dir_.file("prog"); }
  // `command` with HOME set to `home` (made here) and no PERF_BUILDID_DIR.
  std::vector<std::string> in_home(const std::string& home, std::vector<std::string> command) {
    test::run_command({"mkdir", "-p", home});
    return env_command({"-u", "PERF_BUILDID_DIR", "HOME=" + home}, command);
  }
  void record(const std::vector<std::string>& recorder_command, const std::string& home) {
    test::command_result run = test::run_command(in_home(home, recorder_command), 120s);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
  }
  // perf report's "dso symbol" lines for `data`, read with `home`'s cache.
  std::string report(const std::string& data, const std::string& home) {
    test::command_result run = test::run_command(
        in_home(home,
                {"/usr/bin/perf", "report", "-i", data, "--stdio", "-q", "--sort", "dso,sym"}),
        120s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    return run.out;
  }
  // `perf buildid-cache -l` with `home`'s cache, sorted.
  std::vector<std::string> cache_list(const std::string& home) {
    test::command_result run =
        test::run_command(in_home(home, {"/usr/bin/perf", "buildid-cache", "-l"}));
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    std::vector<std::string> lines;
    std::istringstream text{run.out};
    for (std::string line; std::getline(text, line);) lines.push_back(line);
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
};

TEST_F(RecordBuildIdCache, ARebuiltBinaryStillResolvesFromTheCache) {
  build(1);
  std::string home = dir_.file("home");
  std::string data = dir_.file("cached.data");
  record(rec_.command({"-e", "cpu-clock", "-o", data, "--", program()}), home);
  build(2);
  std::string lines = report(data, home);
  EXPECT_NE(lines.find("[.] cache_test_spin"), std::string::npos) << lines;
}

TEST_F(RecordBuildIdCache, WithNoBuildIdCacheARebuiltBinaryNoLongerResolves) {
  build(1);
  std::string home = dir_.file("home");
  std::string data = dir_.file("uncached.data");
  record(rec_.command({"-N", "-e", "cpu-clock", "-o", data, "--", program()}), home);
  EXPECT_TRUE(cache_list(home).empty()) << "-N cached something";
  // Resolves while the binary is the one recorded, so what follows is the cache's doing.
  std::string before = report(data, home);
  EXPECT_NE(before.find("[.] cache_test_spin"), std::string::npos) << before;
  build(2);
  std::string after = report(data, home);
  EXPECT_EQ(after.find("cache_test_spin"), std::string::npos) << after;
  EXPECT_NE(after.find("prog "), std::string::npos) << "the samples are still there: " << after;
}

TEST_F(RecordBuildIdCache, NoBuildIdFillsNoCache) {
  build(1);
  std::string home = dir_.file("home");
  record(rec_.command({"-B", "-e", "cpu-clock", "-o", dir_.file("b.data"), "--", program()}), home);
  EXPECT_TRUE(cache_list(home).empty());
}

// perf archive (perf's own script) packs the cached objects of the recording's dsos with
// samples; extracted into an empty HOME once the binary is gone, perf report resolves them.
TEST_F(RecordBuildIdCache, PerfArchiveOfTheRecordingResolvesWithoutTheBinary) {
  build(1);
  std::string home = dir_.file("home");
  std::string data = dir_.file("archived.data");
  record(rec_.command({"-e", "cpu-clock", "-o", data, "--", program()}), home);
  test::command_result archived =
      test::run_command(in_home(home, {"/usr/bin/perf", "archive", data}), 120s);
  ASSERT_EQ(archived.exit_code, 0) << archived.describe();
  ASSERT_EQ(::unlink(program().c_str()), 0);
  std::string elsewhere = dir_.file("elsewhere");
  test::run_command({"mkdir", "-p", elsewhere + "/.debug"});
  test::command_result extracted =
      test::run_command({"tar", "xf", data + ".tar.bz2", "-C", elsewhere + "/.debug"});
  ASSERT_EQ(extracted.exit_code, 0) << extracted.describe();
  std::string lines = report(data, elsewhere);
  EXPECT_NE(lines.find("[.] cache_test_spin"), std::string::npos) << lines;
}

// With --buildid-all perf caches every dso mapped, as arec always does: the caches list the
// same objects. (Without it perf caches only dsos with samples; arec caches all of them.)
TEST_F(RecordBuildIdCache, CacheListsWhatPerfRecordsCacheLists) {
  build(1);
  std::string ours = dir_.file("ours");
  std::string perfs = dir_.file("perfs");
  record(rec_.command(
             {"--buildid-all", "-e", "cpu-clock", "-o", dir_.file("ours.data"), "--", program()}),
         ours);
  record({"/usr/bin/perf", "record", "-q", "--buildid-all", "-e", "cpu-clock", "-o",
          dir_.file("perfs.data"), "--", program()},
         perfs);
  std::vector<std::string> listed = cache_list(ours);
  EXPECT_EQ(listed, cache_list(perfs));
  std::string program_line;
  for (const std::string& line : listed)
    if (line.ends_with(" " + program())) program_line = line;
  EXPECT_FALSE(program_line.empty()) << "the recorded program is not cached";
  test::command_result vdso = test::run_command({"ls", ours + "/.debug/[vdso]"});
  EXPECT_EQ(vdso.exit_code, 0) << "no [vdso] in the cache: " << vdso.describe();
}

}  // namespace
}  // namespace arec::e2e
