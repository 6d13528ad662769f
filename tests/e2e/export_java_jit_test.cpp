// Perf maps written late: a JVM with -XX:+DumpPerfMapAtExit writes /tmp/perf-PID.map only as it
// exits, long after its first JIT sample. The recording looks for it again at the process's
// exit and at each finished file, through the /tmp it kept open, so `arec export` names the
// Java frames from the recording alone: the host's map is removed before the export, and a
// container's /tmp (a tmpfs of its own) is gone with it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "folded_stacks.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// hotJavaMethod `rounds` times, a fixed amount of work (not of time); prints its pid (in its own
// pid namespace, if any) at the end.
constexpr const char* hot_java = R"(
public class Hot {
  static long hotJavaMethod(long n) {
    long s = 0;
    for (long i = 0; i < n; i++) s += (i * 31) ^ (s >>> 3);
    return s;
  }
  public static void main(String[] args) {
    long rounds = Long.parseLong(args[0]);
    long s = 0;
    for (long r = 0; r < rounds; r++) s += hotJavaMethod(10_000_000L);
    System.out.println(ProcessHandle.current().pid() + " " + (s != 0));
  }
}
)";

class ExportJavaJit : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access("/usr/bin/javac", X_OK) != 0)
      GTEST_SKIP() << "no javac (openjdk-17-jdk-headless, scripts/install-deps.sh)";
    std::ofstream{dir_.file("Hot.java")} << hot_java;
    test::command_result compiled = test::run_command(
        {"javac", "-J-XX:-UsePerfData", "-d", dir_.path(), dir_.file("Hot.java")}, 120s);
    ASSERT_EQ(compiled.exit_code, 0) << compiled.describe();
  }
  // Enough work that the JVM outlives the drain after its first JIT sample. No hsperfdata:
  // the JVM would leave /tmp/hsperfdata_USER behind on the host.
  std::vector<std::string> java(const std::string& classes) const {
    return {"java",
            "-XX:-UsePerfData",
            "-XX:+UnlockDiagnosticVMOptions",
            "-XX:+DumpPerfMapAtExit",
            "-cp",
            classes,
            "Hot",
            "300"};
  }
  std::vector<std::string> record(const std::vector<std::string>& workload) const {
    std::vector<std::string> args{"-q", "-e", "cpu-clock", "-o", data(), "--"};
    args.insert(args.end(), workload.begin(), workload.end());
    return rec_.command(args);
  }
  double exported_hot_share() const {
    test::command_result exported = test::run_command(
        {arec_binary(), "export", "-q", "--format=folded", "-i", data(), "-o", "-"}, 120s);
    EXPECT_EQ(exported.exit_code, 0) << exported.describe();
    double share = leaf_share(exported.out, "Hot.hotJavaMethod");
    if (share <= 0.3) ADD_FAILURE() << "folded:\n" << exported.out.substr(0, 3000);
    return share;
  }
  std::string data() const { return dir_.file("java.data"); }

  test::temp_dir dir_;
  recorder rec_ = recorder::from_environment();
};

TEST_F(ExportJavaJit, AMapWrittenAtExitIsNamedFromTheRecording) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::command_result recorded = test::run_command(record(java(dir_.path())), 300s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  std::string pid = recorded.out.substr(0, recorded.out.find(' '));
  ASSERT_FALSE(pid.empty()) << recorded.describe();
  // The map left on the host goes before the export: only the recording's copy can name them.
  ASSERT_EQ(::unlink(("/tmp/perf-" + pid + ".map").c_str()), 0) << "java wrote no map at exit";
  EXPECT_GT(exported_hot_share(), 0.3);
}

// The JVM in its own pid and mount namespaces with a /tmp of its own: its map is
// /tmp/perf-1.map in a tmpfs that no one can reach once the JVM, and its namespace, are gone.
TEST_F(ExportJavaJit, AContainersMapWrittenAtExitIsNamedOnceTheContainerIsGone) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  std::string inside = "mount --bind " + dir_.path() + " /mnt && mount -t tmpfs arec-test /tmp";
  for (const std::string& word : java("/mnt"))
    inside += (word == "java" ? " && exec " : " ") + word;
  test::command_result recorded = test::run_command(
      record({"unshare", "--pid", "--fork", "--mount", "--mount-proc", "sh", "-c", inside}), 300s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  ASSERT_EQ(recorded.out.substr(0, 2), "1 ") << "java is pid 1 of its namespace";
  EXPECT_GT(exported_hot_share(), 0.3);
}

}  // namespace
}  // namespace arec::e2e
