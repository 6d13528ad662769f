// `arec export` on real recordings of hot_pair: Go's pprof reads the profile and shows the two
// hot functions with the shares perf report gives the same recording, and the program's
// mapping with its build-id; the folded stacks count every sample, root first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "perf_report.hpp"
#include "perf_script.hpp"
#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "rotated_outputs.hpp"
#include "scratch_cgroup.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

// The recording of hot_pair with call graphs, made once for the suite by the recorder under
// test (arec, or perf with AREC_E2E_RECORDER).
class Export : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::temp_dir;
    recorded_ = new test::command_result(test::run_command(
        recorder::from_environment().command({"-o", data(), "-e", "cpu-clock", "-F", "2000", "-g",
                                              "--", test_program("hot_pair"), "600"})));
  }
  static void TearDownTestSuite() {
    delete recorded_;
    delete dir_;
  }
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
    ASSERT_EQ(recorded_->exit_code, 0) << recorded_->describe();
  }
  static std::string data() { return dir_->file("rec.data"); }

  static test::temp_dir* dir_;
  static test::command_result* recorded_;
};
test::temp_dir* Export::dir_ = nullptr;
test::command_result* Export::recorded_ = nullptr;

TEST_F(Export, GoPprofShowsTheHotFunctionsWithPerfReportsShares) {
  const std::string out = dir_->file("profile.pb.gz");
  test::command_result exported =
      test::run_command({arec_binary(), "export", "-i", data(), "-o", out});
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();

  perf_report report = run_perf_report(data());
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  test::command_result top =
      test::run_command({"go", "tool", "pprof", "-top", "-nodecount=1000", "-symbolize=none", out});
  ASSERT_EQ(top.exit_code, 0) << top.describe();
  std::map<std::string, double> shares = pprof_top_shares(top.out).flat;

  perf_script script = run_perf_script(data());
  ASSERT_GE(script.samples.size(), 200u) << script.run.describe();
  // Both read the same samples: they may differ by rounding and by one sample's share.
  double tolerance = 100.0 / static_cast<double>(script.samples.size()) + 0.02;
  for (const char* symbol : {"hot_major", "hot_minor"}) {
    double perf_share = 0;
    for (const report_row& row : report.rows)
      if (row.symbol == symbol) perf_share += row.percent;
    EXPECT_GT(perf_share, 10.0) << symbol << "\n" << report.run.out;
    ASSERT_TRUE(shares.contains(symbol)) << symbol << "\n" << top.out;
    EXPECT_NEAR(shares[symbol], perf_share, tolerance) << symbol << "\n" << top.out;
  }
  EXPECT_NE(top.out.find("Type: cpu-clock"), std::string::npos) << top.out;
}

TEST_F(Export, GoPprofListsTheMappingsWithTheirBuildIds) {
  const std::string out = dir_->file("raw.pb.gz");
  ASSERT_EQ(test::run_command({arec_binary(), "export", "-q", "-i", data(), "-o", out}).exit_code,
            0);
  test::command_result raw =
      test::run_command({"go", "tool", "pprof", "-raw", "-symbolize=none", out});
  ASSERT_EQ(raw.exit_code, 0) << raw.describe();
  test::command_result notes = test::run_command({"readelf", "-n", test_program("hot_pair")});
  auto at = notes.out.find("Build ID: ");
  ASSERT_NE(at, std::string::npos) << notes.describe();
  std::string build_id = notes.out.substr(at + 10, 40);
  // "N: 0xSTART/0xLIMIT/0xOFFSET /path/hot_pair BUILDID [FN]"
  std::string line = test_program("hot_pair") + " " + build_id;
  EXPECT_NE(raw.out.find(line), std::string::npos) << line << "\n" << raw.out;
  // The kernel's mapping is listed when a sample has a kernel frame: a run of hot_pair has
  // only a few (page faults, exit), and on a quiet machine sometimes none.
  perf_report report = run_perf_report(data());
  bool kernel_sampled = std::any_of(report.rows.begin(), report.rows.end(),
                                    [](const report_row& row) { return row.level == 'k'; });
  EXPECT_EQ(raw.out.find("[kernel.kallsyms]") != std::string::npos, kernel_sampled) << raw.out;
  // The stacks: callers above the hot functions, labels per sample.
  EXPECT_NE(raw.out.find("call_major"), std::string::npos);
  EXPECT_NE(raw.out.find("comm:[hot_pair]"), std::string::npos) << raw.out.substr(0, 3000);
}

TEST_F(Export, FoldedStacksCountEverySampleRootFirst) {
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "--format=folded", "-q", "-i", data(), "-o", "-"});
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  perf_script script = run_perf_script(data());
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  std::uint64_t total = 0, major = 0;
  std::istringstream in(exported.out);
  for (std::string line; std::getline(in, line);) {
    auto space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    std::uint64_t count = std::stoull(line.substr(space + 1));
    total += count;
    if (line.starts_with("hot_pair;") &&
        line.substr(0, space).ends_with(";main;call_major;hot_major"))
      major += count;
  }
  EXPECT_EQ(total, sample_records(data())) << excerpt(exported.out);
  EXPECT_GT(major, total / 10) << excerpt(exported.out);
}

TEST_F(Export, DefaultOutputIsNamedAfterTheInput) {
  test::temp_dir dir;
  ASSERT_EQ(test::run_command({"cp", data(), dir.file("copy.data")}).exit_code, 0);
  test::command_result exported =
      test::run_command({arec_binary(), "export", "-i", dir.file("copy.data")});
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_NE(exported.err.find("to " + dir.file("copy.data.pb.gz")), std::string::npos)
      << exported.err;
  test::command_result top = test::run_command(
      {"go", "tool", "pprof", "-top", "-symbolize=none", dir.file("copy.data.pb.gz")});
  EXPECT_EQ(top.exit_code, 0) << top.describe();
}

// An export replaces its output through a temporary name of its own: a file at the name the
// old code used for every export (another export's half-written file) is left alone, and an
// earlier output is replaced whole.
TEST_F(Export, AnOutputIsReplacedWithoutTouchingAnotherExportsTemporaryFile) {
  test::temp_dir dir;
  const std::string out = dir.file("out.folded");
  std::ofstream{out} << "older export\n";
  std::ofstream{out + ".arec-tmp"} << "another export, still writing\n";
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "-q", "--format=folded", "-i", data(), "-o", out});
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  std::ifstream other{out + ".arec-tmp"};
  std::string line;
  std::getline(other, line);
  EXPECT_EQ(line, "another export, still writing");
  std::ifstream replaced{out};
  std::getline(replaced, line);
  EXPECT_NE(line, "older export");
  EXPECT_NE(line.rfind(' '), std::string::npos) << "a folded stack: " << line;
  EXPECT_EQ(test::run_command({"sh", "-c", "ls " + dir.path() + " | grep -c arec-tmp"}).out, "1\n")
      << "no temporary file of this export is left";
}

// The sum of the counts of folded stacks.
std::uint64_t folded_total(const std::string& folded) {
  std::uint64_t total = 0;
  std::istringstream in(folded);
  for (std::string line; std::getline(in, line);)
    total += std::stoull(line.substr(line.rfind(' ') + 1));
  return total;
}

// A --threads directory of compressed files, and the files of a rotated recording given as
// several -i: every sample is exported, as perf script counts them.
TEST(ExportInputs, ReadsCompressedThreadsDirectoriesAndRotatedFilesWhole) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string directory = dir.file("threads.data");
  test::command_result recorded =
      test::run_command(rec.command({"-o", directory, "-z", "--threads=cpu", "-e", "cpu-clock",
                                     "-F", "2000", "--", test_program("hot_pair"), "400"}));
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  perf_script whole = run_perf_script(directory);
  ASSERT_GE(whole.samples.size(), 100u) << whole.run.describe();
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "-q", "--format=folded", "-i", directory, "-o", "-"});
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_EQ(folded_total(exported.out), sample_records(directory)) << excerpt(exported.out);

  const std::string base = dir.file("rotated.data");
  // Small rings wake the drain often, so the 20K limit is crossed many times.
  recorded = test::run_command(
      rec.command({"-o", base, "--switch-output=20K", "-m", "4", "-g", "-e", "cpu-clock", "-F",
                   "2000", "--", test_program("hot_pair"), "800"}));
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  std::vector<std::string> files = rotated_outputs(dir.path(), "rotated.data");
  ASSERT_GE(files.size(), 2u) << recorded.describe();
  std::vector<std::string> command{arec_binary(), "export", "-q", "--format=folded", "-o", "-"};
  std::size_t samples = 0;
  for (const std::string& file : files) {
    command.insert(command.end(), {"-i", file});
    samples += sample_records(file);
  }
  exported = test::run_command(command);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_EQ(folded_total(exported.out), samples) << excerpt(exported.out);
  // Each file alone resolves its samples: the later files' stacks have names too.
  EXPECT_NE(exported.out.find(";call_major;hot_major "), std::string::npos)
      << excerpt(exported.out);
}

// --all-cgroups: the cgroup label is the path perf report --sort cgroup shows.
TEST(ExportLabels, CgroupIsThePathPerfReportShows) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  const std::string data = dir.file("cg.data"), out = dir.file("cg.pb.gz");
  test::command_result recorded = test::run_command(recorder::from_environment().command(
      {"-o", data, "--all-cgroups", "-e", "cpu-clock", "--", test_program("hot_pair"), "200"}));
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  test::command_result report = test::run_command(
      {"perf", "report", "--stdio", "-q", "-i", data, "--sort", "cgroup", "-g", "none"});
  ASSERT_EQ(report.exit_code, 0) << report.describe();
  std::istringstream rows(report.out);
  std::string percent, path;
  ASSERT_TRUE(rows >> percent >> path) << report.out;
  ASSERT_EQ(test::run_command({arec_binary(), "export", "-q", "-i", data, "-o", out}).exit_code, 0);
  test::command_result raw =
      test::run_command({"go", "tool", "pprof", "-raw", "-symbolize=none", out});
  ASSERT_EQ(raw.exit_code, 0) << raw.describe();
  EXPECT_NE(raw.out.find("cgroup:[" + path + "]"), std::string::npos) << path << "\n"
                                                                      << excerpt(raw.out);
}

// A process in a container's cgroup (docker's systemd form, made by the test) gets that
// container's id as a label; a host process none.
// The labels of a hot_pair run in a container's cgroup (docker's systemd form, made by the
// test) and on the host, recorded with `more` options, as pprof -raw prints them.
struct container_labels {
  std::string id, inside, on_host;
};
container_labels labels_in_and_out_of_a_container(const std::vector<std::string>& more) {
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%08x", static_cast<unsigned>(::getpid()));
  container_labels labels;
  labels.id = std::string(56, 'c') + suffix;
  std::string why;
  std::optional<scratch_cgroup> container =
      scratch_cgroup::make(why, "/docker-" + labels.id + ".scope");
  EXPECT_TRUE(container) << why;
  if (!container) return labels;
  test::temp_dir dir;
  auto labels_of = [&](const std::string& name, const std::string& shell_prefix) {
    const std::string data = dir.file(name + ".data"), out = dir.file(name + ".pb.gz");
    std::vector<std::string> args{"-o", data, "-e", "cpu-clock"};
    args.insert(args.end(), more.begin(), more.end());
    // A second of CPU: without --all-cgroups the container is read from /proc/PID/cgroup at
    // the first drain after the process's first sample, while it still runs.
    args.insert(args.end(),
                {"--", "sh", "-c", shell_prefix + "exec " + test_program("hot_pair") + " 1000"});
    test::command_result recorded =
        test::run_command(recorder::from_environment().command(args));
    EXPECT_EQ(recorded.exit_code, 0) << recorded.describe();
    EXPECT_EQ(test::run_command({arec_binary(), "export", "-q", "-i", data, "-o", out}).exit_code,
              0);
    return test::run_command({"go", "tool", "pprof", "-raw", "-symbolize=none", out}).out;
  };
  labels.inside = labels_of("inside", "echo $$ > " + container->path() + "/cgroup.procs && ");
  labels.on_host = labels_of("host", "");
  return labels;
}

// A process in a container's cgroup gets that container's id as a label; a host process none.
TEST(ExportLabels, AProcessInAContainersCgroupCarriesItsContainerId) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  container_labels labels = labels_in_and_out_of_a_container({"--all-cgroups"});
  EXPECT_NE(labels.inside.find("container_id:[" + labels.id + "]"), std::string::npos)
      << excerpt(labels.inside);
  EXPECT_NE(labels.on_host.find("cgroup:["), std::string::npos) << excerpt(labels.on_host);
  EXPECT_EQ(labels.on_host.find("container_id:"), std::string::npos) << excerpt(labels.on_host);
}

// Without --all-cgroups (no cgroup in the samples) the recording notes each sampled process's
// container while it runs, and the label is the same.
TEST(ExportLabels, WithoutAllCgroupsAContainersProcessStillCarriesItsId) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  container_labels labels = labels_in_and_out_of_a_container({});
  EXPECT_NE(labels.inside.find("container_id:[" + labels.id + "]"), std::string::npos)
      << excerpt(labels.inside);
  EXPECT_EQ(labels.inside.find("cgroup:["), std::string::npos) << excerpt(labels.inside);
  EXPECT_EQ(labels.on_host.find("container_id:"), std::string::npos) << excerpt(labels.on_host);
}

TEST_F(Export, NpmDecoderAgreesOnSampleCountsAndLabels) {
  const std::string out = dir_->file("npm.pb.gz");
  ASSERT_EQ(test::run_command({arec_binary(), "export", "-q", "-i", data(), "-o", out}).exit_code,
            0);
  test::command_result decoded = npm_pprof_summary(out);
  ASSERT_EQ(decoded.exit_code, 0) << decoded.describe();
  perf_script script = run_perf_script(data());
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  std::map<std::string, long> by_comm;
  std::map<int, long> by_tid;
  for (const script_sample& sample : script.samples) {
    ++by_comm[sample.comm];
    ++by_tid[sample.tid];
  }
  EXPECT_EQ(json_number(decoded.out, "samples"), static_cast<long>(sample_records(data())))
      << decoded.out;
  for (const auto& [comm, count] : by_comm)
    EXPECT_EQ(json_number(decoded.out, comm), count) << comm << "\n" << decoded.out;
  for (const auto& [tid, count] : by_tid)
    EXPECT_EQ(json_number(decoded.out, std::to_string(tid)), count) << tid << "\n" << decoded.out;
  EXPECT_NE(decoded.out.find("\"cpu-clock_samples/count\",\"cpu-clock/nanoseconds\""),
            std::string::npos)
      << decoded.out;
}

TEST(ExportCommandLine, RejectsAnUnknownFormatAndAMissingInput) {
  test::command_result bad = test::run_command({arec_binary(), "export", "--format=json"});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
  EXPECT_NE(bad.err.find("--format=json: unknown format: use pprof, folded or otlp"),
            std::string::npos)
      << bad.err;
  test::temp_dir dir;
  test::command_result missing =
      test::run_command({arec_binary(), "export", "-i", dir.file("none.data")});
  EXPECT_EQ(missing.exit_code, 1) << missing.describe();
  EXPECT_NE(missing.err.find("arec: error: "), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("none.data"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace arec::e2e
