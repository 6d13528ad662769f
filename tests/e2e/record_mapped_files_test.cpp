// Where production code runs, the file a process maps is not always the file at its path on the
// host: a container's binary bind-mounted over a host path, a binary on a file system only the
// container mounts, a binary replaced by a deploy while it runs. Each is recorded with the
// process still running at the end and with it gone; `perf report` (with the build-id cache
// the recording filled) and `arec export` must charge the hot function of the file that ran,
// never a function of the host's file. The namespaces are the tests' own (unshare), so the host
// sees no mount.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "env_command.hpp"
#include "perf_report.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// HOT names the function that takes the time; VARIANT changes its code, so each build has its
// own build-id (names alone live in .symtab, which the build-id does not cover). argv[1]:
// "forever" (say "spinning", spin until killed) or a number of rounds. argv[2], when given, is renamed over this program first: a
// deploy replacing the binary while it runs.
constexpr const char* program_source = R"(
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
volatile unsigned long sink;
__attribute__((noinline)) void HOT(unsigned long rounds) {
  for (unsigned long i = 0; i < rounds; ++i) sink += i * VARIANT;
}
int main(int argc, char** argv) {
  if (argc > 2 && rename(argv[2], argv[0]) != 0) return perror("rename"), 1;
  if (strcmp(argv[1], "forever") == 0) {
    printf("spinning\n");
    fflush(stdout);
    for (;;) HOT(1000000);
  }
  HOT(strtoul(argv[1], 0, 10));
  return 0;
}
)";

// About a second of CPU: a mapping is read at the first drain or round after it (250 ms at
// most, docs/symbols.md), so a process must outlive that for its file to be read through it.
constexpr const char* rounds = "800000000";

class RecordMappedFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
    std::ofstream{dir_.file("prog.c")} << program_source;
    host_ = dir_.file("app/hot");
    test::run_command({"mkdir", "-p", dir_.file("app"), dir_.file("mnt"), home()});
    build(host_, "host_function");
    build(dir_.file("container_hot"), "container_hot");
  }
  void build(const std::string& path, const std::string& hot) {
    static int variant = 1;
    test::command_result built =
        test::run_command({"cc", "-O1", "-DHOT=" + hot, "-DVARIANT=" + std::to_string(++variant),
                           "-o", path, dir_.file("prog.c")});
    ASSERT_EQ(built.exit_code, 0) << built.describe();
  }
  std::string home() const { return dir_.file("home"); }
  std::string data() const { return dir_.file("perf.data"); }
  std::vector<std::string> in_home(const std::vector<std::string>& command) const {
    return env_command({"-u", "PERF_BUILDID_DIR", "HOME=" + home()}, command);
  }
  // `command` run in a private mount namespace by sh.
  static std::vector<std::string> in_container(const std::string& script) {
    return {"unshare", "--mount", "--propagation", "private", "sh", "-c", script};
  }
  // Records `workload` to its end.
  void record_workload(const std::vector<std::string>& workload) {
    std::vector<std::string> args{"-e", "cpu-clock", "-o", data(), "--"};
    args.insert(args.end(), workload.begin(), workload.end());
    test::command_result run = test::run_command(in_home(rec_.command(args)), 120s);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
  }
  // Starts `spinner` (it says "spinning"), records it with -p for a second, then kills it.
  void record_running(const std::vector<std::string>& spinner) {
    test::child_process running = test::child_process::spawn(spinner);
    ASSERT_EQ(running.read_stdout_line(30s), "spinning\n");
    test::command_result run = test::run_command(
        in_home(rec_.command({"-e", "cpu-clock", "-p", std::to_string(running.pid()),
                              "--duration", "1", "-o", data()})),
        120s);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_FALSE(running.has_exited()) << "it must still run at the end of the recording";
  }
  // The share of perf report's samples (by symbol) in `function`, with the cache filled.
  double perf_report_share(const std::string& function) {
    test::command_result run = test::run_command(
        in_home({"/usr/bin/perf", "report", "-i", data(), "--stdio", "-q", "--sort", "dso,sym",
                 "--no-children", "-g", "none"}),
        120s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    double share = 0;
    for (const report_row& row : parse_perf_report(run.out))
      if (row.symbol == function) share += row.percent;
    if (share < 50) ADD_FAILURE() << "perf report:\n" << run.out << run.describe();
    return share;
  }
  // The share of `arec export --format=folded`'s samples whose leaf is `function`.
  double export_share(const std::string& function) {
    test::command_result run = test::run_command(
        in_home({arec_binary(), "export", "-q", "--format=folded", "-i", data(), "-o", "-"}), 120s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    std::istringstream lines{run.out};
    double total = 0, hot = 0;
    for (std::string line; std::getline(lines, line);) {
      auto space = line.rfind(' ');
      if (space == std::string::npos) continue;
      double count = std::stod(line.substr(space + 1));
      std::string stack = line.substr(0, space);
      total += count;
      if (stack.ends_with(";" + function) || stack == function) hot += count;
    }
    if (total == 0 || hot / total < 0.5) ADD_FAILURE() << "folded:\n" << run.out.substr(0, 2000);
    return total == 0 ? 0 : 100 * hot / total;
  }
  void expect_resolved(const std::string& function) {
    EXPECT_GT(perf_report_share(function), 50);
    EXPECT_GT(export_share(function), 50);
  }

  test::temp_dir dir_;
  recorder rec_ = recorder::from_environment();
  std::string host_;
};

std::string bind_over_host(const std::string& container, const std::string& host) {
  return "mount --bind " + container + " " + host + " && exec " + host;
}

TEST_F(RecordMappedFiles, AContainerBinaryOverAHostPathResolvesOnceItIsGone) {
  record_workload(in_container(bind_over_host(dir_.file("container_hot"), host_) + " " + rounds));
  expect_resolved("container_hot");
}

TEST_F(RecordMappedFiles, AContainerBinaryOverAHostPathResolvesWhileItRuns) {
  record_running(in_container(bind_over_host(dir_.file("container_hot"), host_) + " forever"));
  expect_resolved("container_hot");
}

std::string on_private_tmpfs(const std::string& binary, const std::string& mount_point) {
  return "mount -t tmpfs arec-test " + mount_point + " && cp " + binary + " " + mount_point +
         "/app && exec " + mount_point + "/app";
}

TEST_F(RecordMappedFiles, ABinaryOnlyTheContainerMountsResolvesOnceItIsGone) {
  record_workload(
      in_container(on_private_tmpfs(dir_.file("container_hot"), dir_.file("mnt")) + " " + rounds));
  expect_resolved("container_hot");
}

TEST_F(RecordMappedFiles, ABinaryOnlyTheContainerMountsResolvesWhileItRuns) {
  record_running(
      in_container(on_private_tmpfs(dir_.file("container_hot"), dir_.file("mnt")) + " forever"));
  expect_resolved("container_hot");
}

TEST_F(RecordMappedFiles, ABinaryReplacedWhileItRunsResolvesOnceItIsGone) {
  build(dir_.file("svc"), "old_version");
  build(dir_.file("svc.new"), "new_version");
  record_workload({dir_.file("svc"), rounds, dir_.file("svc.new")});
  expect_resolved("old_version");
}

TEST_F(RecordMappedFiles, ABinaryReplacedWhileItRunsResolvesWhileItRuns) {
  build(dir_.file("svc"), "old_version");
  build(dir_.file("svc.new"), "new_version");
  record_running({dir_.file("svc"), "forever", dir_.file("svc.new")});
  expect_resolved("old_version");
}

}  // namespace
}  // namespace arec::e2e
