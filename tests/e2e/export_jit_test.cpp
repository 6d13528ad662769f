// JIT code: a real `node --perf-basic-prof` spends its time in one JavaScript function, whose
// code V8 generates into anonymous memory and names in /tmp/perf-PID.map. `arec export` names
// those frames from that map, as perf report does (they used to be all unnamed). In a container
// (its own pid and mount namespace, its own /tmp) the map is /tmp/perf-<pid there>.map where no
// one on the host finds it afterwards: the recording captures it while node runs, and export
// names those frames from it, as does perf report of `arec convert`'s file (docs/convert.md).
// JitInContainer runs with a jitdump (`--perf-prof`) too: node gone at the end, and running.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "env_command.hpp"
#include "folded_stacks.hpp"
#include "hot_javascript.hpp"
#include "perf_report.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

TEST(ExportJit, NodeFramesAreNamedFromItsPerfMap) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  std::ofstream{dir.file("hot.js")} << hot_javascript("3e8");
  const std::string data = dir.file("node.data");
  test::command_result recorded =
      test::run_command(recorder::from_environment().command(
                            {"-q", "-g", "-e", "cpu-clock", "-o", data, "--", "node",
                             "--perf-basic-prof", "--logfile=/dev/null", dir.file("hot.js")}),
                        120s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  std::string pid = recorded.out.substr(0, recorded.out.find('\n'));
  ASSERT_FALSE(pid.empty()) << recorded.describe();
  // node leaves its map behind: the test removes it, whatever happens below (--logfile above:
  // and no isolate-*-v8.log in the working directory).
  struct remove_map {
    std::string path;
    ~remove_map() { ::unlink(path.c_str()); }
  } cleanup{"/tmp/perf-" + pid + ".map"};
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "--format=folded", "-i", data, "-o", "-"}, 120s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_GT(leaf_share(exported.out, "jsHotFunction"), 0.5) << exported.out.substr(0, 3000);
  EXPECT_EQ(exported.err.find("--perf-basic-prof"), std::string::npos)
      << "a node that wrote its map is told no flag:\n" << exported.err;
}

// The same node without --perf-basic-prof writes no map: its JIT frames are bare addresses, and
// export says, once, which flag would have named them.
TEST(ExportJit, APlainNodeIsToldTheFlagThatWouldHaveNamedItsFrames) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  std::ofstream{dir.file("hot.js")} << hot_javascript("3e8");
  const std::string data = dir.file("node.data");
  test::command_result recorded = test::run_command(
      recorder::from_environment().command(
          {"-q", "-g", "-e", "cpu-clock", "-o", data, "--", "node", dir.file("hot.js")}),
      120s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "--format=folded", "-i", data, "-o", "-"}, 120s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_EQ(leaf_share(exported.out, "jsHotFunction"), 0) << "no map, no name";
  const std::string told = "Run node with --perf-basic-prof";
  std::size_t at = exported.err.find(told);
  EXPECT_NE(at, std::string::npos) << exported.err;
  EXPECT_EQ(exported.err.find(told, at + 1), std::string::npos) << "said once:\n" << exported.err;
}

// jsHotFunction forever, once V8 has compiled it; says "spinning HOSTPID" (its pid on the host:
// the /proc it reads is the host's) first.
constexpr const char* spinning_script = R"(
function jsHotFunction(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i & 7);
  return s;
}
jsHotFunction(1e7);
const status = require('fs').readFileSync('/proc/self/status', 'utf8');
console.log('spinning ' + status.match(/^NSpid:\s+(\d+)/m)[1]);
for (;;) jsHotFunction(1e7);
)";

// JIT code named from a perf map (false: --perf-basic-prof) or a jitdump (true: --perf-prof).
class JitInContainer : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
    // Longer than the host test's run: the map is captured at the first drain after node's
    // first JIT sample (250 ms at most), and node must still be there then.
    std::ofstream{dir_.file("hot.js")} << hot_javascript("1e9");
    std::string spinning = spinning_script;
    if (GetParam()) spinning.insert(spinning.find("jsHotFunction(1e7);"), jitdump_flushing_prelude);
    std::ofstream{dir_.file("spin.js")} << spinning;
  }
  // node in its own pid and mount namespaces, with a /tmp of its own (a tmpfs the host never
  // sees, where a dump goes too); the scripts are reached through a bind mount, as the tmpfs
  // hides the test's dir.
  std::vector<std::string> in_container(const std::string& script_name,
                                        bool own_proc = true) const {
    std::vector<std::string> command{"unshare", "--pid", "--fork", "--mount"};
    if (own_proc) command.push_back("--mount-proc");
    std::string flags = GetParam() ? "--perf-prof --allow-natives-syntax" : "--perf-basic-prof";
    std::string inside = "mount --bind " + dir_.path() + " /mnt && mount -t tmpfs arec-test /tmp " +
                         "&& cd /tmp && exec node " + flags + " --logfile=/dev/null /mnt/" +
                         script_name;
    command.insert(command.end(), {"sh", "-c", inside});
    return command;
  }
  double exported_hot_share() {
    test::command_result exported = test::run_command(
        {arec_binary(), "export", "-q", "--format=folded", "-i", data(), "-o", "-"}, 120s);
    EXPECT_EQ(exported.exit_code, 0) << exported.describe();
    double share = leaf_share(exported.out, "jsHotFunction");
    if (share <= 0.5) ADD_FAILURE() << "folded:\n" << exported.out.substr(0, 3000);
    return share;
  }
  // The share of node's samples perf report puts in jsHotFunction, in the file `arec convert`
  // made; the cache it writes the JIT ELF into is the test's own ($HOME/.debug).
  double converted_report_share() {
    const std::string home = dir_.file("home"), converted = dir_.file("converted.data");
    test::run_command({"mkdir", "-p", home});
    auto at_home = [&](const std::vector<std::string>& command) {
      return env_command({"-u", "PERF_BUILDID_DIR", "HOME=" + home}, command);
    };
    test::command_result conversion = test::run_command(
        at_home({arec_binary(), "convert", "-q", "-i", data(), "-o", converted}), 120s);
    EXPECT_EQ(conversion.exit_code, 0) << conversion.describe();
    test::command_result report = test::run_command(
        at_home({"/usr/bin/perf", "report", "--stdio", "-i", converted, "--comms", "node",
                 "--sort", "dso,sym", "--no-children", "-g", "none"}),
        120s);
    EXPECT_EQ(report.exit_code, 0) << report.describe();
    double hot = 0;
    for (const report_row& row : parse_perf_report(report.out))
      if (row.symbol.find("jsHotFunction") != std::string::npos) hot += row.percent;
    if (hot <= 50) ADD_FAILURE() << "perf report of the converted file:\n" << report.out;
    return hot / 100;
  }
  std::string data() const { return dir_.file("node.data"); }

  test::temp_dir dir_;
  recorder rec_ = recorder::from_environment();
};

TEST_P(JitInContainer, ItsFramesAreNamedOnceItAndItsTmpAreGone) {
  std::vector<std::string> args{"-q", "-g", "-e", "cpu-clock", "-o", data(), "--"};
  for (const std::string& word : in_container("hot.js")) args.push_back(word);
  test::command_result recorded = test::run_command(rec_.command(args), 120s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  ASSERT_EQ(recorded.out.substr(0, 2), "1\n") << "node is pid 1 of its namespace";
  EXPECT_GT(exported_hot_share(), 0.5);
  EXPECT_GT(converted_report_share(), 0.5);
}

TEST_P(JitInContainer, ItsFramesAreNamedWhileItRuns) {
  test::child_process node = test::child_process::spawn(in_container("spin.js", false));
  std::optional<std::string> said = node.read_stdout_line(60s);
  ASSERT_TRUE(said && said->starts_with("spinning ")) << said.value_or("(nothing)");
  std::string host_pid = said->substr(9, said->size() - 10);
  std::vector<std::string> args{"-q", "-g", "-e", "cpu-clock", "-p", host_pid, "-o", data()};
  for (const std::string& word : rec_.duration_args("2")) args.push_back(word);
  test::command_result recorded = test::run_command(rec_.command(args), 120s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  EXPECT_FALSE(node.has_exited()) << "it must still run at the end of the recording";
  EXPECT_GT(exported_hot_share(), 0.5);
  EXPECT_GT(converted_report_share(), 0.5);
}

INSTANTIATE_TEST_SUITE_P(MapAndDump, JitInContainer, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Jitdump" : "PerfMap"; });

}  // namespace
}  // namespace arec::e2e
