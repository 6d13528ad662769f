// Who may name a process's JIT frames (docs/security.md, "JIT perf maps"): a root recorder
// keeps and uses a perf map only when the process's own user could have written and read it.
// A real second user, in a user and mount namespace of its own, mounts a root-only file over
// its JIT process's map; another user plants a map for a root process. Neither text may name
// a frame or be kept, in the recording (feature 255) or through export's /tmp.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "support/test_user.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// A map line that names every address: whichever code it names, the name shows.
std::string map_naming_everything(const std::string& name) {
  return "0 ffffffffffffffff " + name + "\n";
}

class JitPerfMapTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  }
  // Records `pid` (a jit_loop) for two seconds as root, and returns export's folded stacks.
  std::string record_and_export(const std::string& pid) {
    std::vector<std::string> args{"-e", "cpu-clock", "-p", pid, "-o", data()};
    for (const std::string& word : rec_.duration_args("2")) args.push_back(word);
    recorded_ = test::run_command(rec_.command(args), 120s);
    EXPECT_EQ(recorded_.exit_code, 0) << recorded_.describe();
    test::command_result exported = test::run_command(
        {arec_binary(), "export", "-q", "--format=folded", "-i", data(), "-o", "-"}, 120s);
    EXPECT_EQ(exported.exit_code, 0) << exported.describe();
    EXPECT_NE(exported.out.find("jit_loop"), std::string::npos) << "no sample of it:\n"
                                                                << exported.out;
    return exported.out;
  }
  std::string data() const { return dir_.file("jit.data"); }

  test::temp_dir dir_;
  recorder rec_ = recorder::from_environment();
  test::command_result recorded_;
};

// The user cannot read root's 0600 file, but may mount it in its own namespace: the capture
// used to follow the mount, accept root as the owner and keep the text in the recording.
TEST_F(JitPerfMapTrust, ARootOnlyFileAUserMountsOverItsMapIsNeitherKeptNorNamed) {
  test::test_user other;
  ASSERT_EQ(::chmod(dir_.path().c_str(), 0711), 0) << "the user must reach the file to mount it";
  const std::string secret = dir_.file("secret");
  std::ofstream{secret} << map_naming_everything("ROOT_ONLY_SECRET");
  ASSERT_EQ(::chmod(secret.c_str(), 0600), 0);
  // Its own /tmp (a tmpfs of its namespace: the host's /tmp is untouched), and the root-only
  // file mounted at its map's path, reached through the test's directory mounted on /mnt. The
  // program runs from that directory too: the tmpfs hides whatever else was under /tmp (a
  // build in a clone there, as the README's test command makes).
  std::filesystem::copy_file(test_program("jit_loop"), dir_.file("jit_loop"));
  ASSERT_EQ(::chmod(dir_.file("jit_loop").c_str(), 0755), 0);
  std::string inside = "mount --bind " + dir_.path() + " /mnt && mount -t tmpfs arec-test /tmp" +
                       " && : > /tmp/perf-$$.map && mount --bind /mnt/secret /tmp/perf-$$.map" +
                       " && exec /mnt/jit_loop 60000 none";
  test::child_process jit =
      test::child_process::spawn({"setpriv", "--reuid=" + std::to_string(other.uid()),
                                  "--regid=" + std::to_string(other.gid()), "--clear-groups",
                                  "unshare", "-Urm", "sh", "-c", inside});
  std::optional<std::string> pid = jit.read_stdout_line(60s);
  if (!pid && jit.has_exited())
    GTEST_SKIP() << "no user namespace for an unprivileged user here: " << jit.stderr_so_far();
  ASSERT_TRUE(pid) << "jit_loop did not start";
  std::string folded = record_and_export(pid->substr(0, pid->size() - 1));
  EXPECT_EQ(folded.find("ROOT_ONLY_SECRET"), std::string::npos) << folded;
  if (rec_.is_arec()) {
    EXPECT_NE(recorded_.err.find("is a mount of its own, not a file of the process's /tmp: its "
                                 "JIT frames stay unnamed"),
              std::string::npos)
        << recorded_.err;
  }
}

// The capture refused a map another user wrote for a root process ("its JIT frames stay
// unnamed"), and then export read the same file from /tmp and named them with it.
TEST_F(JitPerfMapTrust, AMapAnotherUserPlantedForARootProcessNamesNothing) {
  test::test_user other;
  test::child_process jit = test::child_process::spawn({test_program("jit_loop"), "60000", "none"});
  std::optional<std::string> pid = jit.read_stdout_line(60s);
  ASSERT_TRUE(pid) << "jit_loop did not start";
  struct removed_at_end {
    std::string path;
    ~removed_at_end() { ::unlink(path.c_str()); }
  } planted{"/tmp/perf-" + pid->substr(0, pid->size() - 1) + ".map"};
  { std::ofstream{planted.path} << map_naming_everything("PLANTED_BY_ANOTHER_USER"); }
  ASSERT_EQ(::chown(planted.path.c_str(), other.uid(), other.gid()), 0);
  std::string folded = record_and_export(pid->substr(0, pid->size() - 1));
  EXPECT_EQ(folded.find("PLANTED_BY_ANOTHER_USER"), std::string::npos) << folded;
  if (rec_.is_arec()) {
    EXPECT_NE(recorded_.err.find("is owned by uid " + std::to_string(other.uid())),
              std::string::npos)
        << recorded_.err;
  }
}

}  // namespace
}  // namespace arec::e2e
