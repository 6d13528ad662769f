// The build-id cache: a recording still resolves after its binary is rebuilt at the same path,
// because the recorder put the binary in the cache ($HOME/.debug) under its build-id; with -N it
// does not; and the cache lists what perf record's lists. `arec archive` packs the cached
// objects so that another machine (an empty HOME, the binary removed, the running kernel's
// symbols hidden) resolves user, vdso and kernel symbols. HOME is a temporary directory in
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
#include "recording_check.hpp"
#include "support/child_process.hpp"
#include "support/test_user.hpp"
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

// Time in the vdso (clock_gettime) and in the kernel (getppid), whose symbols come only from
// the cache's [vdso] image and kallsyms copy once the machine's own are out of reach.
constexpr const char* vdso_kernel_source = R"(
#include <time.h>
#include <unistd.h>
volatile long sink;
int main(void) {
  struct timespec now;
  for (long i = 0; i < 10000000L; ++i) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    sink += now.tv_nsec;
    if ((i & 7) == 0) sink += getppid();
  }
  return 0;
}
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
  // `arec archive ARGS` with `home`'s cache.
  test::command_result arec_archive(const std::string& home, std::vector<std::string> args) {
    args.insert(args.begin(), {arec_binary(), "archive"});
    return test::run_command(in_home(home, args), 120s);
  }
  // Extracts `archive` into an empty HOME's cache, as on another machine; returns that HOME.
  std::string extract_elsewhere(const std::string& archive, const std::string& name) {
    std::string elsewhere = dir_.file(name);
    test::run_command({"mkdir", "-p", elsewhere + "/.debug"});
    test::command_result extracted =
        test::run_command({"tar", "xf", archive, "-C", elsewhere + "/.debug"});
    EXPECT_EQ(extracted.exit_code, 0) << extracted.describe();
    return elsewhere;
  }
  // perf report's "dso symbol" lines with `home`'s cache, where the running kernel's symbols
  // and build-id are hidden (/proc/kallsyms and /sys/kernel/notes read as empty), as they
  // are to a machine running another kernel. They are hidden behind an empty file of ours, not
  // /dev/null: on some machines (containers) that is a regular file holding what was written
  // to it, and perf 6.1 aborts on a notes file of garbage.
  std::string report_without_running_kernel(const std::string& data, const std::string& home) {
    std::string empty_file = dir_.file("empty_file");
    std::ofstream{empty_file}.flush();
    std::string script = "mount --bind " + empty_file + " /proc/kallsyms && mount --bind " +
                         empty_file +
                         " /sys/kernel/notes && exec env -u PERF_BUILDID_DIR HOME=" + home +
                         " /usr/bin/perf report -i " + data + " --stdio -q --sort dso,sym";
    test::command_result run = test::run_command(
        {"unshare", "--mount", "--propagation", "private", "sh", "-c", script}, 120s);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    return run.out;
  }
  // Lines of `report` for kernel symbols that have a name (not a bare address).
  static std::vector<std::string> named_kernel_symbols(const std::string& report) {
    std::vector<std::string> named;
    std::istringstream lines{report};
    for (std::string line; std::getline(lines, line);) {
      auto at = line.find("[k] ");
      if (at != std::string::npos && line.compare(at + 4, 2, "0x") != 0) named.push_back(line);
    }
    return named;
  }
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
  // The names in a tar file, sorted.
  std::vector<std::string> tar_listing(const std::string& archive) {
    test::command_result listed = test::run_command({"tar", "tf", archive});
    EXPECT_EQ(listed.exit_code, 0) << listed.describe();
    std::vector<std::string> names;
    std::istringstream text{listed.out};
    for (std::string name; std::getline(text, name);) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
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

// arec archive's tar holds what perf archive's holds for the same recording (perf's holds the
// dsos with samples; arec's every dso of the BUILD_ID feature, so at least those), in the same
// layout; extracted elsewhere with the binary gone, perf report resolves its symbols.
TEST_F(RecordBuildIdCache, ArecArchiveHoldsWhatPerfArchiveHoldsAndResolvesElsewhere) {
  build(1);
  std::string home = dir_.file("home");
  std::string data = dir_.file("archived.data");
  record(rec_.command({"-e", "cpu-clock", "-o", data, "--", program()}), home);
  test::command_result perfs =
      test::run_command(in_home(home, {"/usr/bin/perf", "archive", data}), 120s);
  ASSERT_EQ(perfs.exit_code, 0) << perfs.describe();
  std::string perf_archive = dir_.file("perf.tar.bz2");
  ASSERT_EQ(::rename((data + ".tar.bz2").c_str(), perf_archive.c_str()), 0);

  test::command_result ours = arec_archive(home, {data});
  ASSERT_EQ(ours.exit_code, 0) << ours.describe();
  EXPECT_NE(ours.out.find("$ tar xvf " + data + ".tar.bz2 -C ~/.debug"), std::string::npos)
      << ours.out;
  std::vector<std::string> ours_listed = tar_listing(data + ".tar.bz2");
  for (const std::string& entry : tar_listing(perf_archive))
    EXPECT_TRUE(std::binary_search(ours_listed.begin(), ours_listed.end(), entry))
        << entry << " is in perf archive's tar, not in arec archive's";

  ASSERT_EQ(::unlink(program().c_str()), 0);
  std::string lines = report(data, extract_elsewhere(data + ".tar.bz2", "elsewhere"));
  EXPECT_NE(lines.find("[.] cache_test_spin"), std::string::npos) << lines;
}

// The vdso and the kernel: with the running kernel's symbols hidden, an empty cache leaves
// their samples as addresses; the archive's [vdso] image and kallsyms copy name them.
TEST_F(RecordBuildIdCache, VdsoAndKernelSymbolsResolveFromTheArchiveAlone) {
  std::ofstream{dir_.file("vdso_kernel.c")} << vdso_kernel_source;
  std::string binary = dir_.file("vdso_kernel");
  test::command_result built =
      test::run_command({"cc", "-O1", "-o", binary, dir_.file("vdso_kernel.c")});
  ASSERT_EQ(built.exit_code, 0) << built.describe();
  std::string home = dir_.file("home");
  std::string data = dir_.file("vk.data");
  record(rec_.command({"-e", "cpu-clock", "-o", data, "--", binary}), home);
  std::string empty = dir_.file("empty");
  test::run_command({"mkdir", "-p", empty});
  std::string without = report_without_running_kernel(data, empty);
  EXPECT_TRUE(named_kernel_symbols(without).empty()) << "the kernel was not hidden:\n" << without;
  EXPECT_EQ(without.find("__vdso_clock_gettime"), std::string::npos) << without;

  test::command_result archived = arec_archive(home, {"-i", data, "-o", dir_.file("vk.tar.bz2")});
  ASSERT_EQ(archived.exit_code, 0) << archived.describe();
  std::string with =
      report_without_running_kernel(data, extract_elsewhere(dir_.file("vk.tar.bz2"), "elsewhere"));
  EXPECT_FALSE(named_kernel_symbols(with).empty()) << with;
  EXPECT_NE(with.find("[vdso]"), std::string::npos) << with;
  EXPECT_NE(with.find("[.] __vdso_clock_gettime"), std::string::npos) << with;
}

TEST_F(RecordBuildIdCache, ArchiveOfARecordingWithoutBuildIdsOrCachedObjectsFails) {
  build(1);
  std::string home = dir_.file("home");
  record(rec_.command({"-B", "-e", "cpu-clock", "-o", dir_.file("b.data"), "--", program()}), home);
  test::command_result no_ids = arec_archive(home, {dir_.file("b.data")});
  EXPECT_EQ(no_ids.exit_code, 1);
  EXPECT_NE(no_ids.err.find("holds no build-ids"), std::string::npos) << no_ids.describe();

  record(rec_.command({"-N", "-e", "cpu-clock", "-o", dir_.file("n.data"), "--", program()}), home);
  test::command_result none_cached = arec_archive(home, {dir_.file("n.data")});
  EXPECT_EQ(none_cached.exit_code, 1);
  EXPECT_NE(none_cached.err.find("holds none of the"), std::string::npos) << none_cached.describe();
  EXPECT_NE(::access(dir_.file("n.data.tar.bz2").c_str(), F_OK), 0) << "an empty archive was left";
}

// With --buildid-all perf caches every dso mapped, and so does arec: the caches list the same
// objects. (Without it both cache only the dsos with samples.)
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

// Another user maps a 2 GiB sparse ELF file from /dev/shm and never runs it; a system-wide
// recording by root must not copy it into root's cache (it used to: +2 GiB, not sparse), while
// the program that got the samples is cached.
TEST_F(RecordBuildIdCache, AFileAnotherUserMapsButNeverRunsIsNotCached) {
  build(1);
  test::test_user other;
  std::string big = "/dev/shm/arec-test-" + std::to_string(::getpid()) + "-mapped";
  struct remove_on_exit {
    std::string path;
    ~remove_on_exit() { ::unlink(path.c_str()); }
  } cleanup{big};
  ASSERT_EQ(test::run_command({"cp", program(), big}).exit_code, 0);
  ASSERT_EQ(::truncate(big.c_str(), std::int64_t{2} << 30), 0);
  ASSERT_EQ(::chown(big.c_str(), other.uid(), other.gid()), 0);
  test::child_process mapper = test::child_process::spawn(
      {"setpriv", "--reuid=" + std::to_string(other.uid()),
       "--regid=" + std::to_string(other.gid()), "--clear-groups",
       std::string(AREC_TEST_PROGRAMS) + "/map_and_wait", big});
  ASSERT_EQ(mapper.read_stdout_line(30s), "mapped\n");
  std::string home = dir_.file("home");
  record(rec_.command({"-a", "-e", "cpu-clock", "-o", dir_.file("a.data"), "--", program()}),
         home);
  std::vector<std::string> listed = cache_list(home);
  auto cached = [&](const std::string& path) {
    return std::any_of(listed.begin(), listed.end(),
                       [&](const std::string& line) { return line.ends_with(" " + path); });
  };
  EXPECT_TRUE(cached(program())) << "the sampled program is not cached";
  EXPECT_FALSE(cached(big)) << "a file only mapped went into the cache";
  EXPECT_NE(::access((home + "/.debug" + big).c_str(), F_OK), 0)
      << "the mapped file has a directory in the cache";
}

// perfconfig's buildid.dir names one cache for all three (symbols::default_build_id_dir): the
// recording puts the program there, `arec archive` packs it from there, and with the program
// gone `arec export` names its function from there alone (export used to read $HOME/.debug
// whatever perfconfig said).
TEST_F(RecordBuildIdCache, PerfconfigBuildIdDirIsHonouredByRecordExportAndArchive) {
  build(1);
  std::string home = dir_.file("home");
  std::string cache = dir_.file("configured-cache");
  test::run_command({"mkdir", "-p", home});
  std::ofstream{home + "/.perfconfig"} << "[buildid]\n\tdir = " << cache << "\n";
  std::string data = dir_.file("c.data");
  record(rec_.command({"-e", "cpu-clock", "-o", data, "--", program()}), home);
  EXPECT_NE(::access((home + "/.debug").c_str(), F_OK), 0) << "the recording used ~/.debug";
  std::vector<std::string> build_ids = directory_entries(cache + program());
  ASSERT_EQ(build_ids.size(), 1u) << "the recording did not put the program in " << cache;
  std::string hex = build_ids[0];
  std::string object = program().substr(1) + "/" + hex + "/elf";
  std::string link = ".build-id/" + hex.substr(0, 2) + "/" + hex.substr(2);
  EXPECT_EQ(::access((cache + "/" + link + "/elf").c_str(), R_OK), 0) << "no link to " << object;

  test::command_result archived = arec_archive(home, {data});
  ASSERT_EQ(archived.exit_code, 0) << archived.describe();
  std::vector<std::string> names = tar_listing(data + ".tar.bz2");
  EXPECT_TRUE(std::binary_search(names.begin(), names.end(), object))
      << "the archive lacks " << object;
  EXPECT_TRUE(std::binary_search(names.begin(), names.end(), link)) << "the archive lacks " << link;

  ASSERT_EQ(::unlink(program().c_str()), 0);  // only the configured cache has it now
  test::command_result exported = test::run_command(
      in_home(home, {arec_binary(), "export", "-q", "--format=folded", "-i", data, "-o", "-"}),
      120s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_NE(exported.out.find(";cache_test_spin "), std::string::npos)
      << "export did not resolve from the configured cache:\n" << exported.out.substr(0, 2000);
}

// $PERF_BUILDID_DIR is set only by perf, for its scripts: a value in the environment leaves
// arec's cache where perf report reads it ($HOME/.debug), and nothing goes where it points.
TEST_F(RecordBuildIdCache, ThePerfBuildIdDirVariableIsIgnoredAsPerfIgnoresIt) {
  build(1);
  std::string home = dir_.file("home");
  std::string elsewhere = dir_.file("elsewhere");
  test::run_command({"mkdir", "-p", home, elsewhere});
  std::string data = dir_.file("e.data");
  test::command_result run = test::run_command(
      env_command({"PERF_BUILDID_DIR=" + elsewhere, "HOME=" + home},
                  rec_.command({"-e", "cpu-clock", "-o", data, "--", program()})),
      120s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(test::run_command({"find", elsewhere, "-mindepth", "1"}).out, "")
      << "the recording filled the cache the variable names";
  EXPECT_EQ(directory_entries(home + "/.debug" + program()).size(), 1u)
      << "the program is not in $HOME/.debug, where perf report looks";
}

// Another user owns the cache directory root is told to use (perfconfig's buildid.dir) and has
// planted a symlink in it to a directory of root's: the recording refuses the cache, says why,
// and writes nothing anywhere through it.
TEST_F(RecordBuildIdCache, ACacheAnotherUserControlsIsRefusedAndNothingIsWrittenThroughIt) {
  build(1);
  test::test_user other;
  std::string cache = dir_.file("their-cache");
  std::string victim = dir_.file("roots-directory");
  test::run_command({"mkdir", "-p", cache, victim});
  ASSERT_EQ(::chown(cache.c_str(), other.uid(), other.gid()), 0);
  ASSERT_EQ(::chmod(dir_.path().c_str(), 0711), 0);  // the other user may pass through it
  test::command_result planted = test::run_command(
      {"setpriv", "--reuid=" + std::to_string(other.uid()),
       "--regid=" + std::to_string(other.gid()), "--clear-groups", "ln", "-s", victim,
       cache + "/.build-id"});
  ASSERT_EQ(planted.exit_code, 0) << planted.describe();
  std::string home = dir_.file("home");
  test::run_command({"mkdir", "-p", home});
  std::ofstream{home + "/.perfconfig"} << "[buildid]\n\tdir = " << cache << "\n";
  test::command_result run = test::run_command(
      in_home(home, rec_.command({"-e", "cpu-clock", "-o", dir_.file("u.data"), "--", program()})),
      120s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_NE(run.err.find("the build-id cache is not used: " + cache + " is owned by uid " +
                         std::to_string(other.uid())),
            std::string::npos)
      << run.err;
  EXPECT_EQ(test::run_command({"find", victim, "-mindepth", "1"}).out, "")
      << "root wrote through the planted symlink";
  EXPECT_EQ(test::run_command({"find", cache, "-mindepth", "1", "!", "-name", ".build-id"}).out,
            "")
      << "root wrote into the other user's directory";
}

}  // namespace
}  // namespace arec::e2e
