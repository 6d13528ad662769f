// Where production code runs, the file a process maps is not always the file at its path on the
// host: a container's binary bind-mounted over a host path, a binary on a file system only the
// container mounts, a binary replaced by a deploy while it runs. Each is recorded with the
// process still running at the end and with it gone; `perf report` (with the build-id cache
// the recording filled) and `arec export` must charge the hot function of the file that ran,
// never a function of the host's file. The namespaces are the tests' own (unshare), so the host
// sees no mount.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
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
// "forever" (say "spinning", spin until killed), "until:PATH" (spin until PATH exists) or a
// number of rounds. argv[2], when given, is renamed over this program first: a deploy
// replacing the binary while it runs.
constexpr const char* program_source = R"(
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
  if (strncmp(argv[1], "until:", 6) == 0) {
    while (access(argv[1] + 6, F_OK) != 0) HOT(1000000);
    return 0;
  }
  HOT(strtoul(argv[1], 0, 10));
  return 0;
}
)";

// A few milliseconds of CPU: a process that short is gone before arec reads its file (at the
// first drain or round after the mapping, 250 ms at most: docs/symbols.md), on any machine.
constexpr const char* short_rounds = "3000000";

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
  // The argument that makes the program spin until the test says it may end.
  std::string until_released() const { return "until:" + dir_.file("release"); }
  // Records `workload` (given until_released()) to its end, which comes once arec has read the
  // file mapped as `path`: the build-id cache holds it. So the process is gone at the end of
  // the recording, and was read while it ran however fast or busy the machine is.
  void record_workload_read_while_it_ran(const std::vector<std::string>& workload,
                                         const std::string& path) {
    std::vector<std::string> args{"-e", "cpu-clock", "-o", data(), "--"};
    args.insert(args.end(), workload.begin(), workload.end());
    test::child_process recording = test::child_process::spawn(in_home(rec_.command(args)));
    bool cached = wait_for_cached(path, 120s);
    test::run_command({"touch", dir_.file("release")});
    test::command_result run = recording.wait(120s);
    ASSERT_TRUE(cached) << "no build-id cache entry for " << path << "\n" << run.describe();
    ASSERT_EQ(run.exit_code, 0) << run.describe();
  }
  // True once the build-id cache under home() holds an object mapped as `path`.
  bool wait_for_cached(const std::string& path, std::chrono::seconds limit) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    const std::string entries = home() + "/.debug" + path;
    while (std::chrono::steady_clock::now() < deadline) {
      test::command_result found = test::run_command({"find", entries, "-name", "elf"});
      if (found.exit_code == 0 && !found.out.empty()) return true;
      std::this_thread::sleep_for(10ms);  // polls gently: a busy loop would take arec's CPU
    }
    return false;
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
  // perf report's rows (by dso and symbol), with the cache filled.
  std::vector<report_row> perf_report_rows(std::string& text) {
    test::command_result run = test::run_command(
        in_home({"/usr/bin/perf", "report", "-i", data(), "--stdio", "-q", "--sort", "dso,sym",
                 "--no-children", "-g", "none"}),
        120s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    text = run.out + run.describe();
    return parse_perf_report(run.out);
  }
  // The share of perf report's samples in `function`, and (in `in_dsos`) in the dsos whose
  // names start with `dsos`.
  double perf_report_share(const std::string& function, std::string& text,
                           const std::string& dsos = "", double* in_dsos = nullptr) {
    double share = 0;
    for (const report_row& row : perf_report_rows(text)) {
      if (row.symbol == function) share += row.percent;
      if (in_dsos && row.dso.starts_with(dsos)) *in_dsos += row.percent;
    }
    return share;
  }
  // `arec export --format=folded`'s samples: all of them, and those whose leaf is `function`.
  std::pair<double, double> export_counts(const std::string& function, std::string& text) {
    test::command_result run = test::run_command(
        in_home({arec_binary(), "export", "-q", "--format=folded", "-i", data(), "-o", "-"}), 120s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    text = run.out.substr(0, 2000);
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
    return {total, hot};
  }
  void expect_resolved(const std::string& function) {
    std::string text;
    EXPECT_GT(perf_report_share(function, text), 50) << "perf report:\n" << text;
    auto [total, hot] = export_counts(function, text);
    EXPECT_GT(total == 0 ? 0 : 100 * hot / total, 50) << "folded:\n" << text;
  }
  // No sample is charged to `wrong`, in perf report and in export; samples did fall in the
  // dsos whose names start with `dsos` (a test that saw none could not fail).
  void expect_never_charged_to(const std::string& wrong, const std::string& dsos) {
    std::string text;
    double in_dsos = 0;
    EXPECT_EQ(perf_report_share(wrong, text, dsos, &in_dsos), 0) << "perf report:\n" << text;
    EXPECT_GT(in_dsos, 0) << "no sample in " << dsos << "*; perf report:\n" << text;
    auto [total, charged] = export_counts(wrong, text);
    EXPECT_EQ(charged, 0) << "folded:\n" << text;
    EXPECT_GT(total, 0) << "folded:\n" << text;
  }
  // Records `script`, run by sh, to its end; returns arec's stderr.
  std::string record_script(const std::string& script) {
    test::command_result run = test::run_command(
        in_home(rec_.command({"-e", "cpu-clock", "-o", data(), "--", "sh", "-c", script})), 120s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    return run.err;
  }

  test::temp_dir dir_;
  recorder rec_ = recorder::from_environment();
  std::string host_;
};

std::string bind_over_host(const std::string& container, const std::string& host) {
  return "mount --bind " + container + " " + host + " && exec " + host;
}

TEST_F(RecordMappedFiles, AContainerBinaryOverAHostPathResolvesOnceItIsGone) {
  record_workload_read_while_it_ran(
      in_container(bind_over_host(dir_.file("container_hot"), host_) + " " + until_released()),
      host_);
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
  record_workload_read_while_it_ran(
      in_container(on_private_tmpfs(dir_.file("container_hot"), dir_.file("mnt")) + " " +
                   until_released()),
      dir_.file("mnt/app"));
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
  record_workload_read_while_it_ran({dir_.file("svc"), until_released(), dir_.file("svc.new")},
                                    dir_.file("svc"));
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

namespace arec::e2e {
namespace {

// The race on purpose: thirty jobs of a few milliseconds each, each at a path of its own,
// almost all of them gone before arec reads the file they mapped, while the path holds another
// file (the host's binary under a container's, the new binary of a deploy). What arec writes
// must keep perf from taking that file for the mapped one: their samples are the job's
// function or unnamed, never the other file's; and arec says which files it could not read.
constexpr const char* unread_warning = "ended before arec could read the file it mapped";
constexpr int jobs = 30;

// `one(i)` for each job i, in one sh script.
template <typename Command>
std::string each_job(Command one) {
  std::string script = "set -e";
  for (int i = 0; i < jobs; ++i) script += "; " + one(i);
  return script;
}

TEST_F(RecordMappedFiles, ShortLivedContainerBinariesAreNeverChargedToTheHostFileAtTheirPath) {
  for (int i = 0; i < jobs; ++i) {
    std::filesystem::copy_file(host_, dir_.file("job" + std::to_string(i)));
    std::filesystem::copy_file(dir_.file("container_hot"), dir_.file("image" + std::to_string(i)));
  }
  std::string err = record_script(each_job([&](int i) {
    std::string n = std::to_string(i);
    return "unshare --mount --propagation private sh -c '" +
           bind_over_host(dir_.file("image" + n), dir_.file("job" + n)) + " " + short_rounds + "'";
  }));
  EXPECT_NE(err.find(unread_warning), std::string::npos) << err;
  expect_never_charged_to("host_function", "job");
}

// A cron job: the same container binary, first in short runs that end before arec reads it, then
// in one that runs until arec has (the build-id cache holds it). The file is read through that
// later run, so every run's samples are named, not only the last one's.
TEST_F(RecordMappedFiles, AJobThatRunsAgainIsNamedThroughItsLaterRun) {
  std::string run = "unshare --mount --propagation private sh -c '" +
                    bind_over_host(dir_.file("container_hot"), host_);
  std::string shorts = each_job([&](int) { return run + " " + short_rounds + "'"; });
  record_workload_read_while_it_ran({"sh", "-c", shorts + "; " + run + " " + until_released() + "'"},
                                    host_);
  std::string text;
  double in_dso = 0;
  double named = perf_report_share("container_hot", text, "hot", &in_dso);
  EXPECT_GT(in_dso, 0) << text;
  EXPECT_NEAR(named, in_dso, 0.5) << "every sample of the binary is named:\n" << text;
}

// A deploy: each job's old binary ran briefly, then a new one took its path.
TEST_F(RecordMappedFiles, ShortLivedJobsOfAReplacedBinaryAreNeverChargedToTheNewFileAtTheirPath) {
  build(dir_.file("svc.old"), "old_version");
  build(dir_.file("svc.new"), "new_version");
  for (int i = 0; i < jobs; ++i) {
    std::filesystem::copy_file(dir_.file("svc.old"), dir_.file("job" + std::to_string(i)));
    std::filesystem::copy_file(dir_.file("svc.new"), dir_.file("next" + std::to_string(i)));
  }
  std::string err = record_script(each_job([&](int i) {
    std::string n = std::to_string(i);
    return dir_.file("job" + n) + " " + short_rounds + " " + dir_.file("next" + n);
  }));
  EXPECT_NE(err.find(unread_warning), std::string::npos) << err;
  expect_never_charged_to("new_version", "job");
}

}  // namespace
}  // namespace arec::e2e
