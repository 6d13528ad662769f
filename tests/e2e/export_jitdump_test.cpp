// JIT code named from a jitdump: a real `node --perf-prof` (no perf map) writes jit-PID.dump in
// its working directory and maps it executable; the recording captures the dump through that
// mapping while node runs, and `arec export` names node's JIT frames from the captured dump,
// after node is gone and its dump file removed (as a user's cleanup would), plain or with -g,
// with the source lines of its DEBUG_INFO records in a pprof.
// The recording's clock pairs bracket the dump's times, mapped onto the recording's clock.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "folded_stacks.hpp"
#include "host/jitdump.hpp"
#include "hot_javascript.hpp"
#include "perf_data/jitdumps_feature.hpp"
#include "perf_data/perf_file_reader.hpp"
#include "pprof_summary.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

// The bytes of code in the CODE_LOAD records (id 0) of the dump at `path`: each record is
// u32 id, u32 total_size, u64 time, and a CODE_LOAD's code_size is at its offset 40.
std::uint64_t code_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string dump((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto u32 = [&](std::size_t at) {
    std::uint32_t value = 0;
    std::memcpy(&value, dump.data() + at, sizeof value);
    return value;
  };
  std::uint64_t code = 0;
  for (std::size_t at = u32(8); at + 48 <= dump.size() && u32(at + 4) >= 16; at += u32(at + 4)) {
    if (u32(at) != 0) continue;
    std::uint64_t size = 0;
    std::memcpy(&size, dump.data() + at + 40, sizeof size);
    code += size;
  }
  return code;
}

class ExportJitdump : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
    std::ofstream{dir_.file("hot.js")} << hot_javascript("3e8");
  }
  // Records node --perf-prof, run in the test's dir (where it writes its dump); its pid.
  std::string record(bool call_graph) {
    std::vector<std::string> args{"-q", "-e", "cpu-clock", "-o", dir_.file("node.data")};
    if (call_graph) args.push_back("-g");
    std::string node = "cd " + dir_.path() + " && exec node --perf-prof --logfile=/dev/null hot.js";
    args.insert(args.end(), {"--", "sh", "-c", node});
    test::command_result recorded =
        test::run_command(recorder::from_environment().command(args), 120s);
    EXPECT_EQ(recorded.exit_code, 0) << recorded.describe();
    return recorded.out.substr(0, recorded.out.find('\n'));
  }

  test::temp_dir dir_;
};

TEST_P(ExportJitdump, NodesFramesAreNamedFromItsCapturedDumpAfterItAndItsFileAreGone) {
  std::string pid = record(GetParam());
  ASSERT_FALSE(pid.empty());
  std::string dump = dir_.file("jit-" + pid + ".dump");
  ASSERT_TRUE(std::filesystem::exists(dump)) << "node --perf-prof wrote no " << dump;
  ASSERT_FALSE(std::filesystem::exists("/tmp/perf-" + pid + ".map")) << "no perf map names it";
  ASSERT_EQ(::unlink(dump.c_str()), 0);
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "--format=folded", "-i", dir_.file("node.data"), "-o", "-"}, 120s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  // V8 names optimized code "JS:*jsHotFunction /dir/hot.js:2:23" in its dump.
  EXPECT_GT(leaf_share(exported.out, "JS:*jsHotFunction"), 0.5) << exported.out.substr(0, 3000);
  EXPECT_EQ(exported.err.find("--perf-basic-prof"), std::string::npos)
      << "a node that wrote a dump is told no flag:\n"
      << exported.err;

  // Its DEBUG_INFO records give the source lines: the loop, line 4 of hot.js (hot_javascript),
  // as the pprof's Line of the hot function, whose file is the script. node 20 writes the
  // record of that function with a garbled file name about one run in two (symbols/jit_lines):
  // then it has no line, never a wrong one (JitUnwindingInfo checks lines every run).
  std::string profile = dir_.file("node.pb.gz");
  test::command_result pprof = test::run_command(
      {arec_binary(), "export", "-q", "--format=pprof", "-i", dir_.file("node.data"), "-o", profile},
      120s);
  ASSERT_EQ(pprof.exit_code, 0) << pprof.describe();
  test::command_result summary = npm_pprof_summary(profile, "jsHotFunction");
  ASSERT_EQ(summary.exit_code, 0) << summary.describe();
  ASSERT_GT(json_number(summary.out, "leafMatches"), 0) << summary.out;
  std::size_t lines = summary.out.find("\"leafLines\":{");
  ASSERT_NE(lines, std::string::npos) << summary.out;
  std::string listed = summary.out.substr(lines, summary.out.find('}', lines) - lines);
  std::string hot_line = "\"" + dir_.file("hot.js") + ":4\"";
  // Every line the hot function's samples have is the loop's.
  for (std::size_t at = listed.find(":{") + 2; at < listed.size(); at = listed.find(',', at) + 1) {
    EXPECT_EQ(listed.compare(at, hot_line.size(), hot_line), 0) << summary.out;
    if (listed.find(',', at) == std::string::npos) break;
  }
}

// The dump kept whole but its code, its records' times (CLOCK_MONOTONIC) within the file's two clock pairs,
// and, mapped through the end pair onto the recording's clock, within the file there too.
TEST_P(ExportJitdump, TheDumpIsKeptWholeWithClockPairsThatBracketItsTimes) {
  std::string pid = record(GetParam());
  ASSERT_FALSE(pid.empty());
  std::string path = dir_.file("jit-" + pid + ".dump");
  test::command_result size = test::run_command({"stat", "-c", "%s", path});
  auto reader = perf_data::perf_file_reader::open(dir_.file("node.data"));
  auto payload = reader.feature(perf_data::feature_arec_jitdumps);
  ASSERT_TRUE(payload) << "no jitdump feature";
  perf_data::captured_jitdumps kept = perf_data::parse_jitdumps_payload(*payload, 0, "node.data");
  ASSERT_EQ(kept.dumps.size(), 1u);
  const perf_data::captured_jitdump& dump = kept.dumps[0];
  EXPECT_EQ(std::to_string(dump.pid), pid);
  EXPECT_EQ(dump.left_out, 0u);
  EXPECT_EQ(std::to_string(dump.bytes.size() + code_bytes(path)) + "\n", size.out)
      << "node's dump, all of it but the code of its CODE_LOAD records";
  const perf_data::file_clocks& clocks = kept.clocks;
  ASSERT_NE(clocks.start.monotonic_ns, 0u);
  ASSERT_NE(clocks.end.recording_ns, 0u);
  auto bytes = std::as_bytes(std::span{dump.bytes});
  // node's header holds the wall-clock time in microseconds; its records, CLOCK_MONOTONIC.
  auto first_record = host::jitdump_value<std::uint64_t>(bytes, 40 + 8, false);
  EXPECT_LE(clocks.start.monotonic_ns, first_record);
  EXPECT_LE(first_record, clocks.end.monotonic_ns);
  std::uint64_t on_recording_clock =
      first_record - clocks.end.monotonic_ns + clocks.end.recording_ns;
  EXPECT_LE(clocks.start.recording_ns, on_recording_clock);
  EXPECT_LE(on_recording_clock, clocks.end.recording_ns);
}

// node as pid 1 of its own pid and mount namespaces, its dump in its own /tmp (a tmpfs the host
// never sees, gone with the namespace): the dump is captured through the mapping all the same.
TEST(ExportJitdumpInContainer, ItsFramesAreNamedOnceItAndItsTmpAreGone) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  std::ofstream{dir.file("hot.js")} << hot_javascript("3e8");
  std::string inside = "mount --bind " + dir.path() + " /mnt && mount -t tmpfs arec-test /tmp " +
                       "&& cd /tmp && exec node --perf-prof --logfile=/dev/null /mnt/hot.js";
  test::command_result recorded =
      test::run_command(recorder::from_environment().command(
                            {"-q", "-e", "cpu-clock", "-o", dir.file("node.data"), "--", "unshare",
                             "--pid", "--fork", "--mount", "--mount-proc", "sh", "-c", inside}),
                        120s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  ASSERT_EQ(recorded.out.substr(0, 2), "1\n") << "node is pid 1 of its namespace";
  ASSERT_FALSE(std::filesystem::exists("/tmp/jit-1.dump")) << "its dump was in its own /tmp";
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "--format=folded", "-i", dir.file("node.data"), "-o", "-"}, 120s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_GT(leaf_share(exported.out, "JS:*jsHotFunction"), 0.5) << exported.out.substr(0, 3000);
}

// --call-graph dwarf through JIT code: libdwfl has no CFI for V8's code (the dump's
// UNWINDING_INFO is not read yet), but V8 keeps frame pointers, and libdw's frame-pointer
// fallback unwinds through its frames: the samples in leafWork keep their callers up to node's
// main. perf 6.1's own dwarf unwinding of the same program stops at the JIT frame (one frame in
// ~98 % of its samples here: docs/symbols.md).
TEST(ExportJitdumpDwarf, SamplesInJitCodeKeepTheirCallersUpToNodesMain) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  test::temp_dir dir;
  std::ofstream{dir.file("deep.js")} << R"(
function leafWork(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i & 7); return s; }
function middleCaller(n) { return leafWork(n) + 1; }
function outerCaller(n, ms) {
  let t = 0;
  for (const end = Date.now() + ms; Date.now() < end;) t += middleCaller(n);
  return t;
}
console.log(outerCaller(1e6, 1000) > 0);
)";
  std::string node = "cd " + dir.path() + " && exec node --perf-prof --logfile=/dev/null deep.js";
  test::command_result recorded = test::run_command(
      recorder::from_environment().command({"-q", "-e", "cpu-clock", "--call-graph", "dwarf",
                                            "-o", dir.file("node.data"), "--", "sh", "-c", node}),
      120s);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.describe();
  test::command_result exported = test::run_command(
      {arec_binary(), "export", "--format=folded", "-i", dir.file("node.data"), "-o", "-"}, 120s);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  double in_leaf = 0, reaching_main = 0;
  std::istringstream lines{exported.out};
  for (std::string line; std::getline(lines, line);) {
    std::size_t space = line.rfind(' '), leaf = line.rfind(';', space);
    if (space == std::string::npos || leaf == std::string::npos ||
        line.find("leafWork", leaf) == std::string::npos)
      continue;
    double count = std::stod(line.substr(space + 1));
    in_leaf += count;
    if (line.find(";node::Start(") != std::string::npos) reaching_main += count;
  }
  ASSERT_GE(in_leaf, 100) << exported.out.substr(0, 3000);
  EXPECT_GE(reaching_main, 0.9 * in_leaf) << exported.out.substr(0, 3000);
}

INSTANTIATE_TEST_SUITE_P(PlainAndCallGraph, ExportJitdump, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "CallGraph" : "Plain"; });

}  // namespace
}  // namespace arec::e2e
