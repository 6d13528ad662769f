// Build-ids: a process that dlopen()ed a library before arec attached is recorded; perf
// attributes its samples to the library's function and finds the library's build-id (as
// readelf -n shows it) in the BUILD_ID feature.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "perf_report.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

constexpr const char* library_source = R"(
volatile unsigned long accumulator;
__attribute__((noinline)) void library_spin(unsigned long milliseconds_hint) {
  for (;;)
    for (unsigned long i = 0; i < 1000000 + milliseconds_hint; ++i) accumulator += i;
}
)";

constexpr const char* loader_source = R"(
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  void* library = dlopen(argv[1], RTLD_NOW);
  if (!library) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  void (*spin)(unsigned long) = (void (*)(unsigned long))dlsym(library, "library_spin");
  if (!spin) return 1;
  printf("ready\n");
  fflush(stdout);
  spin(0);
  return 0;
}
)";

void write_file(const std::string& path, const char* text) {
  std::ofstream(path) << text;
}

// The "Build ID: <hex>" readelf -n prints for `path`, or "" when it prints none.
std::string readelf_build_id(const std::string& path) {
  test::command_result run = test::run_command({"readelf", "-n", path});
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);)
    if (auto at = line.find("Build ID: "); at != std::string::npos) return line.substr(at + 10);
  return {};
}

TEST(RecordBuildId, AttachedProcessLibraryIsResolvedAndListedWithItsBuildId) {
  if (auto why = missing_prerequisite(perf_scope::other_process)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string library = dir.file("libspin_e2e.so");
  const std::string loader = dir.file("loader");
  write_file(dir.file("library.c"), library_source);
  write_file(dir.file("loader.c"), loader_source);
  test::command_result built =
      test::run_command({"cc", "-O1", "-g", "-shared", "-fPIC", "-Wl,--build-id", "-o", library,
                         dir.file("library.c")});
  ASSERT_EQ(built.exit_code, 0) << built.describe();
  built = test::run_command({"cc", "-O1", "-o", loader, dir.file("loader.c"), "-ldl"});
  ASSERT_EQ(built.exit_code, 0) << built.describe();
  const std::string expected_id = readelf_build_id(library);
  ASSERT_EQ(expected_id.size(), 40u) << "readelf -n shows no 20-byte build-id";

  test::child_process spinner = test::child_process::spawn({loader, library});
  std::optional<std::string> ready = spinner.read_stdout_line(10s);
  ASSERT_TRUE(ready) << "the loader did not report ready";
  ASSERT_EQ(*ready, "ready\n");

  const std::string data = dir.file("build_id.data");
  std::vector<std::string> args{"-p", std::to_string(spinner.pid()), "-o", data};
  for (std::string& arg : rec.duration_args("1")) args.push_back(std::move(arg));
  test::command_result run = test::run_command(rec.command(args), 30s);
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();

  perf_report report = run_perf_report(data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  double in_library = 0;
  for (const report_row& row : report.rows)
    if (row.dso == "libspin_e2e.so" && row.symbol == "library_spin") in_library += row.percent;
  EXPECT_GE(in_library, 90.0) << report.run.out;

  test::command_result listed = test::run_command({"perf", "buildid-list", "-i", data});
  ASSERT_EQ(listed.exit_code, 0) << listed.describe();
  EXPECT_NE(listed.out.find(expected_id + " " + library + "\n"), std::string::npos)
      << "perf buildid-list:\n"
      << listed.out << "expected " << expected_id << " " << library;
  std::istringstream lines(listed.out);
  std::string first;
  std::getline(lines, first);
  EXPECT_TRUE(first.ends_with(" [kernel.kallsyms]")) << "the kernel comes first:\n" << listed.out;
}

// A perf record session held disabled until `enable()`, through perf's --control fifos: once
// enable() returns its events are live, with no sleep in between.
class controlled_perf_session {
 public:
  controlled_perf_session(const test::temp_dir& dir, std::vector<std::string> options)
      : control_(dir.file("ctl")), ack_(dir.file("ack")) {
    for (const std::string& fifo : {control_, ack_})
      if (::mkfifo(fifo.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + fifo);
    std::vector<std::string> argv{"perf", "record", "-q",
                                  "-D",   "-1",     "--control=fifo:" + control_ + "," + ack_};
    argv.insert(argv.end(), options.begin(), options.end());
    session_.emplace(test::child_process::spawn(argv));
  }
  // Sends "enable" and waits for perf's "ack".
  bool enable() {
    std::ofstream(control_) << "enable" << std::endl;
    std::ifstream ack(ack_);
    std::string word;
    return static_cast<bool>(ack >> word) && word == "ack";
  }
  test::command_result stop() {
    session_->send_signal(SIGINT);
    return session_->wait(60s);
  }

 private:
  std::string control_, ack_;
  std::optional<test::child_process> session_;
};

void expect_hot_loop_resolved(const std::string& data) {
  perf_report report = run_perf_report(data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  EXPECT_FALSE(has_warning_besides_lost_chunks(report.run)) << report.run.err;
  // Among the samples in hot_loop's own code, as every share is taken (perf_script.hpp): a
  // busy machine or a sanitizer runtime adds time elsewhere.
  double hot = 0, own = 0;
  for (const report_row& row : report.rows) {
    // A sanitizer build links its runtime into hot_loop itself: its start-up is not hot_loop's.
    bool runtime = row.symbol.starts_with("__sanitizer") || row.symbol.starts_with("__tsan") ||
                   row.symbol.starts_with("__asan") || row.symbol.starts_with("__lsan") ||
                   row.symbol.starts_with("__interceptor") || row.symbol.starts_with("__ubsan");
    if (row.dso != "hot_loop" || runtime) continue;
    own += row.percent;
    if (row.symbol == "hot_function") hot += row.percent;
  }
  ASSERT_GT(own, 0.0) << report.run.out;
  EXPECT_GE(hot / own, 0.90) << report.run.out;
}

// Newer perf versions record with --buildid-mmap by default. While such a session runs, the
// kernel marks the MMAP2 records of every later-visited event (arec's per-task ones included)
// as holding build-ids though they hold device and inode: arec's file must still read.
TEST(RecordBuildId, ConcurrentBuildIdSessionLeavesTheRecordingReadable) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  controlled_perf_session other(dir, {"--buildid-mmap", "-a", "-e", "cpu-clock", "-o",
                                      dir.file("other.data"), "--", "sleep", "60"});
  ASSERT_TRUE(other.enable()) << "perf's --control did not acknowledge";

  const std::string data = dir.file("ours.data");
  test::command_result run =
      test::run_command(rec.command({"-o", data, "--", test_program("hot_loop"), "1000"}), 60s);
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();
  other.stop();
  expect_hot_loop_resolved(data);
  test::command_result script =
      test::run_command({"perf", "script", "-i", data, "--show-mmap-events"});
  ASSERT_EQ(script.exit_code, 0) << script.describe();
  EXPECT_NE(script.out.find("PERF_RECORD_MMAP2"), std::string::npos) << excerpt(script.out);
}

// The other way round: arec recording system-wide must not change what another session records.
// Its events are visited first, so a build-id request of its own would leak into the other
// session's MMAP2 records (perf 6.1 then aborts reading them).
TEST(RecordBuildId, SystemWideRecordingLeavesAnotherSessionReadable) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  if (!rec.is_arec()) GTEST_SKIP() << "perf record itself asks for no build-ids by default";
  test::temp_dir dir;
  test::child_process arec = test::child_process::spawn(
      rec.command({"-v", "-a", "-o", dir.file("system.data"), "--duration", "60"}));
  ASSERT_TRUE(arec.wait_for_stderr("arec: recording started\n", 60s)) << "arec did not start";

  const std::string theirs = dir.file("theirs.data");
  test::command_result perf = test::run_command(
      {"perf", "record", "-q", "-o", theirs, "--", test_program("hot_loop"), "1000"}, 60s);
  arec.send_signal(SIGINT);
  test::command_result ours = arec.wait(60s);
  ASSERT_EQ(perf.exit_code, 0) << "perf record beside arec -a: " << perf.describe();
  expect_hot_loop_resolved(theirs);
  EXPECT_EQ(ours.exit_code, 0) << ours.describe();
}

TEST(RecordBuildId, BuildIdMmapAsksTheKernelAndWarns) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("buildid-mmap.data");
  test::command_result run = test::run_command(
      rec.command({"--buildid-mmap", "-o", data, "--", test_program("hot_loop"), "1000"}), 60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  if (rec.is_arec()) {
    EXPECT_NE(run.err.find("arec: warning: --buildid-mmap: "), std::string::npos) << run.err;
  }
  test::command_result evlist = test::run_command({"perf", "evlist", "-v", "-i", data});
  EXPECT_NE(evlist.out.find("build_id: 1"), std::string::npos) << evlist.out;
  expect_hot_loop_resolved(data);
}

}  // namespace
}  // namespace arec::e2e
