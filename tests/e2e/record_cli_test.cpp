// Command-line behaviours of real runs: how an existing output is kept, that a planted symlink
// is never written through, the errors for bad targets and limits, quiet mode, and how SIGTERM
// and an attached process's exit end a recording.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "arec_summary.hpp"
#include "env_command.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "recording_check.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "thread_summary.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.flush().good()) << "writing " << path;
}

std::optional<struct stat> lstat_of(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return std::nullopt;
  return info;
}

// Every file of directory `path` with its contents.
std::map<std::string, std::string> contents_of(const std::string& path) {
  std::map<std::string, std::string> files;
  for (const std::string& name : directory_entries(path))
    files[name] = read_file(path + "/" + name);
  return files;
}

std::vector<std::string> short_workload(const std::string& out) {
  return {"-o", out, "-F", "1000", "--", test_program("hot_loop"), "200"};
}

// A failed run's stderr: exactly one line, "arec: error: ..." naming every part in `named`.
void expect_one_line_error(const test::command_result& run, const std::vector<std::string>& named) {
  EXPECT_TRUE(run.err.starts_with("arec: error: ")) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line:\n" << run.err;
  for (const std::string& part : named)
    EXPECT_NE(run.err.find(part), std::string::npos) << "should name " << part << ":\n" << run.err;
}

class ArecOnly : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rec_.is_arec()) GTEST_SKIP() << "arec's own behaviour";
  }
  recorder rec_ = recorder::from_environment();
  test::temp_dir dir_;
};

using RecordOutput = ArecOnly;

TEST_F(RecordOutput, ExistingFileIsKeptAsOldAndNewFileIsPrivate) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  const std::string out = dir_.file("kept.data");
  write_file(out + ".old", "an older recording\n");
  write_file(out, "the previous recording\n");
  ASSERT_EQ(::chmod(out.c_str(), 0644), 0);

  test::command_result run = test::run_command(rec_.command(short_workload(out)), 60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(read_file(out + ".old"), "the previous recording\n")
      << "the previous output becomes PATH.old, replacing an older one";
  std::optional<struct stat> info = lstat_of(out);
  ASSERT_TRUE(info);
  EXPECT_TRUE(S_ISREG(info->st_mode));
  EXPECT_EQ(info->st_mode & 07777, 0600u) << "a recording can hold kernel addresses";
  check_recording(out, run);
}

// As perf record: without -o the recording is ./perf.data (the previous one kept as
// perf.data.old), where `perf report` looks without -i. stdout is /dev/null: on a pipe, perf
// record without -o streams the pipe format to it instead.
TEST(RecordDefaults, OutputIsPerfDataInTheWorkingDirectory) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  write_file(dir.file("perf.data"), "the previous recording\n");
  std::vector<std::string> record =
      rec.command({"-q", "-e", "cpu-clock", "-F", "1000", "--", test_program("hot_loop"), "200"});
  record.insert(record.begin(),
                {"env", "-C", dir.path(), "sh", "-c", "exec \"$@\" >/dev/null", "sh"});
  test::command_result run = test::run_command(record, 60s);
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();
  EXPECT_EQ(read_file(dir.file("perf.data.old")), "the previous recording\n");

  test::command_result report = test::run_command(
      {"env", "-C", dir.path(), "perf", "report", "--stdio", "--sort", "comm"}, 60s);
  ASSERT_EQ(report.exit_code, 0) << report.describe();
  EXPECT_NE(report.out.find("hot_loop"), std::string::npos) << report.out;
}

// -o /dev/null, as perf's own shell tests and many scripts write: the recording (and an export
// or a conversion) is written into the device, which stays the machine's null device (arec
// once renamed it to /dev/null.old and linked a regular file in its place). Run in a mount
// namespace whose /dev is a tmpfs with a null node of its own, so a failure harms no host.
TEST(RecordDefaults, DevNullIsWrittenIntoAndStaysTheNullDevice) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  std::string data = dir.file("kept.data");
  test::command_result recorded = test::run_command(
      rec.command({"-q", "-e", "cpu-clock", "-o", data, "--", test_program("hot_loop"), "100"}),
      60s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  std::string arec = arec_binary();
  std::string script =
      "mount -t tmpfs arec-test-dev /dev && mknod -m 666 /dev/null c 1 3 || exit 99\n"
      "\"$@\" && " + arec + " export -q -i " + data + " -o /dev/null && " + arec +
      " convert -q -i " + data + " -o /dev/null\n"
      "status=$?\n"
      "stat -c '%F %t,%T' /dev/null; ls -A /dev; exit $status";
  std::vector<std::string> argv{"unshare", "--mount", "--propagation", "private",
                                "sh",      "-c",      script,          "sh"};
  std::vector<std::string> record = rec.command({"-q", "-e", "cpu-clock", "-o", "/dev/null",
                                                 "--", test_program("hot_loop"), "100"});
  argv.insert(argv.end(), record.begin(), record.end());
  test::command_result run = test::run_command(argv, 60s);
  EXPECT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();
  EXPECT_EQ(run.out, "character special file 1,3\nnull\n")
      << "/dev/null was replaced, or a file was left beside it";
}

TEST_F(RecordOutput, ExistingDirectoryIsKeptAsOldWithThreads) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  const std::string out = dir_.file("kept-dir.data");
  std::vector<std::string> args{"--threads=cpu", "-a", "-o", out, "--duration", "0.3"};
  test::command_result first = test::run_command(rec_.command(args), 60s);
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  std::map<std::string, std::string> previous = contents_of(out);
  ASSERT_GE(previous.size(), 2u) << "data and at least one data.N";

  test::command_result second = test::run_command(rec_.command(args), 60s);
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  EXPECT_TRUE(contents_of(out + ".old") == previous)
      << "the previous directory must become PATH.old with every file unchanged";
  std::optional<struct stat> info = lstat_of(out);
  ASSERT_TRUE(info);
  EXPECT_TRUE(S_ISDIR(info->st_mode));
  EXPECT_EQ(info->st_mode & 07777, 0700u);
  for (const std::string& name : directory_entries(out)) {
    std::optional<struct stat> file = lstat_of(out + "/" + name);
    ASSERT_TRUE(file) << name;
    EXPECT_EQ(file->st_mode & 07777, 0600u) << name;
  }
  check_threaded_recording(out, second);
}

// Someone who can write to the output's directory plants a symlink at the output path, to a
// file they want overwritten (or created). arec must write neither through the link.
TEST_F(RecordOutput, SymlinkAtOutputPathIsNotFollowed) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  const std::string victim = dir_.file("victim");
  const std::string absent_victim = dir_.file("absent-victim");
  write_file(victim, "precious\n");
  ASSERT_EQ(::chmod(victim.c_str(), 0644), 0);

  for (const std::string& target : {victim, absent_victim}) {
    SCOPED_TRACE("symlink to " + target);
    const std::string out = dir_.file("link-" + std::string(file_name(target)) + ".data");
    ASSERT_EQ(::symlink(target.c_str(), out.c_str()), 0) << std::strerror(errno);
    test::command_result run = test::run_command(rec_.command(short_workload(out)), 60s);

    EXPECT_EQ(read_file(victim), "precious\n") << "written through the symlink";
    std::optional<struct stat> victim_info = lstat_of(victim);
    ASSERT_TRUE(victim_info);
    EXPECT_EQ(victim_info->st_mode & 07777, 0644u);
    EXPECT_FALSE(lstat_of(absent_victim)) << "created through a dangling symlink";

    // arec keeps the link as PATH.old (as it keeps any previous output) and writes a new file.
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    std::optional<struct stat> info = lstat_of(out);
    ASSERT_TRUE(info);
    EXPECT_TRUE(S_ISREG(info->st_mode)) << "the output must be a new regular file";
    std::error_code error;
    EXPECT_EQ(std::filesystem::read_symlink(out + ".old", error).string(), target);
    check_recording(out, run);
  }
}

using RecordCli = ArecOnly;

TEST_F(RecordCli, OfflineCpuIsUsageErrorNamingIt) {
  std::vector<int> online = online_cpus();
  int cpu = 99;
  if (std::find(online.begin(), online.end(), cpu) != online.end()) cpu = online.back() + 1;
  const std::string out = dir_.file("never.data");
  test::command_result run =
      test::run_command(rec_.command({"-C", std::to_string(cpu), "-o", out}));
  EXPECT_EQ(run.exit_code, 2) << run.describe();
  expect_one_line_error(run, {"cpu " + std::to_string(cpu)});
  EXPECT_FALSE(lstat_of(out));
}

TEST_F(RecordCli, MissingPidIsUsageErrorNamingIt) {
  int pid = 999999;
  while (::kill(pid, 0) == 0 || errno != ESRCH) ++pid;
  const std::string out = dir_.file("never.data");
  test::command_result run =
      test::run_command(rec_.command({"-p", std::to_string(pid), "-o", out, "--duration", "1"}));
  EXPECT_EQ(run.exit_code, 2) << run.describe();
  expect_one_line_error(run, {std::to_string(pid)});
  EXPECT_FALSE(lstat_of(out));
}

TEST_F(RecordCli, MissingWorkloadExits127WithReason) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  const std::string out = dir_.file("missing-workload.data");
  test::command_result run =
      test::run_command(rec_.command({"-o", out, "--", "/nonexistent/program"}));
  EXPECT_EQ(run.exit_code, 127) << run.describe();
  std::string last_line = run.err.substr(run.err.rfind('\n', run.err.size() - 2) + 1);
  EXPECT_EQ(last_line,
            "arec: error: cannot run '/nonexistent/program': No such file or directory\n")
      << run.err;
}

// (A count that is not a power of two is rounded up, as perf does: RecordPerfOptions.)
TEST_F(RecordCli, MmapPagesThatAreNotASizeAreAUsageError) {
  const std::string out = dir_.file("never.data");
  test::command_result run =
      test::run_command(rec_.command({"-m", "lots", "-a", "-o", out, "--duration", "1"}));
  EXPECT_EQ(run.exit_code, 2) << run.describe();
  expect_one_line_error(run, {"-m lots", "a number of pages or a size"});
  EXPECT_FALSE(lstat_of(out));
}

// -q silences everything: the event fallback note, the io notice, the thread, summary and
// compression lines; the recording is still complete.
TEST_F(RecordCli, QuietPrintsNothingOnStderr) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  const std::string out = dir_.file("quiet.data");
  test::command_result run = test::run_command(
      rec_.command({"-q", "-o", out, "-F", "1000", "--", test_program("hot_loop"), "200"}), 60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(run.err, "");
  perf_script script = run_perf_script(out);
  EXPECT_EQ(script.run.exit_code, 0) << script.run.describe();
  EXPECT_FALSE(script.samples.empty());

  const std::string dir_out = dir_.file("quiet-threads.data");
  test::command_result busy = test::run_command(
      env_command({"AREC_FORCE_PLAIN_IO=1"}, rec_.command({"-q", "-v", "-z", "--threads=cpu", "-a",
                                                           "-o", dir_out, "--duration", "0.3"})),
      60s);
  ASSERT_EQ(busy.exit_code, 0) << busy.describe();
  EXPECT_EQ(busy.err, "") << "-q wins over -v";
  EXPECT_EQ(run_perf_script(dir_out).run.exit_code, 0);
}

TEST_F(RecordCli, LowDescriptorLimitNamesDescriptorsNeeded) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  const std::string out = dir_.file("never.data");
  test::command_result run = test::run_command({"prlimit", "--nofile=20:20", "true"}, 30s);
  ASSERT_EQ(run.exit_code, 0) << "prlimit does not work here: " << run.describe();
  std::vector<std::string> argv{"prlimit", "--nofile=20:20"};
  for (const std::string& arg : rec_.command({"-a", "-o", out, "--duration", "1"}))
    argv.push_back(arg);
  run = test::run_command(argv, 30s);
  EXPECT_NE(run.exit_code, 0) << run.describe();
  EXPECT_NE(run.exit_code, 2) << "not a usage error: the command line is fine";
  expect_one_line_error(run, {"file descriptors", "20"});
  std::smatch needed;
  ASSERT_TRUE(std::regex_search(run.err, needed, std::regex("needs ([0-9]+) file descriptors")))
      << run.err;
  EXPECT_GT(std::stoi(needed[1]), 20) << run.err;
  EXPECT_FALSE(lstat_of(out)) << "nothing is created before the limit is checked";
}

using RecordStop = ArecOnly;

TEST_F(RecordStop, SigtermEndsSystemWideRecordingCleanly) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  const std::string out = dir_.file("sigterm.data");
  // The recording lasts far longer than the wait below: only the SIGTERM can end it in time.
  test::child_process recording =
      test::child_process::spawn(rec_.command({"-v", "-a", "-o", out, "--duration", "300"}));
  ASSERT_TRUE(wait_for_samples_on_disk(recording, 0)) << recording.stderr_so_far();
  recording.send_signal(SIGTERM);
  test::command_result run = recording.wait(60s);
  ASSERT_FALSE(run.timed_out) << "arec ignored SIGTERM: " << run.describe();
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  check_recording(out, run);
}

TEST_F(RecordStop, AttachedProcessExitEndsRecording) {
  if (auto why = missing_prerequisite(perf_scope::other_process)) GTEST_SKIP() << *why;
  const std::string out = dir_.file("attach-exit.data");
  test::child_process spinner = test::child_process::spawn({test_program("spin_until_killed")});
  std::optional<std::string> ready = spinner.read_stdout_line(10s);
  ASSERT_TRUE(ready) << "spin_until_killed did not report ready";

  // The target ends once it has been recorded; only its exit can end the recording within the
  // wait, long before --duration.
  test::child_process recorder = test::child_process::spawn(
      rec_.command({"-v", "-p", std::to_string(spinner.pid()), "-o", out, "--duration", "300"}));
  ASSERT_TRUE(wait_for_samples_on_disk(recorder, 0)) << recorder.stderr_so_far();
  spinner.send_signal(SIGTERM);
  test::command_result spun = spinner.wait(60s);
  EXPECT_EQ(spun.term_signal, SIGTERM) << spun.describe();
  test::command_result run = recorder.wait(60s);
  ASSERT_FALSE(run.timed_out) << "the recording went on after pid " << spinner.pid()
                              << " exited: " << run.describe();
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  checked_recording recording = check_recording(out, run);
  if (HasFailure()) return;
  const int pid = spinner.pid();
  EXPECT_TRUE(std::any_of(recording.script.samples.begin(), recording.script.samples.end(),
                          [pid](const script_sample& s) { return s.tid == pid; }))
      << "no sample of pid " << pid << ":\n"
      << excerpt(recording.script.run.out);
}

}  // namespace
}  // namespace arec::e2e
