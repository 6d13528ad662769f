// JIT code named from a jitdump in the converted file, with no perf inject: a real `node
// --perf-prof` writes jit-PID.dump (no perf map); arec captures it while recording, and `arec
// convert` writes one ELF per code generation of the process into the build-id cache and maps
// node's JIT code to it, so perf report and hotspot's parser name jsHotFunction. perf 6.1 needs
// `perf record -k mono` and `perf inject --jit` for that, which writes one ELF per function:
// the file counts are compared on the same node program.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "env_command.hpp"
#include "hot_javascript.hpp"
#include "hotspot_parse.hpp"
#include "perf_report.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

using namespace std::chrono_literals;

class ConvertJitdump : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
    std::filesystem::create_directories(home_);
    std::ofstream{dir_.file("hot.js")} << hot_javascript("3e8");
  }
  // `command` with the test's own HOME, so the build-id cache is $HOME/.debug inside the
  // test's directory for arec, perf and hotspot's parser alike.
  std::vector<std::string> at_home(const std::vector<std::string>& command) const {
    return env_command({"-u", "PERF_BUILDID_DIR", "HOME=" + home_}, command);
  }
  test::command_result run(const std::vector<std::string>& command) const {
    test::command_result result = test::run_command(at_home(command), 180s);
    EXPECT_EQ(result.exit_code, 0) << result.describe();
    return result;
  }
  // The share of node's samples whose own function (perf report, self) is jsHotFunction.
  double hot_share(const std::string& data) const {
    test::command_result report =
        run({"/usr/bin/perf", "report", "--stdio", "-i", data, "--comms", "node", "--sort",
             "dso,sym", "--no-children", "-g", "none"});
    double hot = 0;
    for (const report_row& row : parse_perf_report(report.out))
      if (row.symbol.find("jsHotFunction") != std::string::npos) hot += row.percent;
    return hot / 100;
  }
  // Regular files under `path`, recursively.
  static std::size_t files_under(const std::string& path) {
    std::size_t count = 0;
    if (!std::filesystem::exists(path)) return 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path))
      if (entry.is_regular_file()) ++count;
    return count;
  }
  // node --perf-prof of hot.js, run in the test's directory, where it writes its dump.
  std::vector<std::string> node_in_dir() const {
    return {"sh", "-c",
            "cd " + dir_.path() + " && exec node --perf-prof --logfile=/dev/null hot.js"};
  }

  test::temp_dir dir_;
  const std::string home_ = dir_.file("home");
};

// node as pid 1 of its own pid and mount namespaces, its dump in its own /tmp, gone at the end.
TEST_F(ConvertJitdump, NodeInAContainerIsNamedByPerfReportAndHotspotWithoutPerfInject) {
  std::string data = dir_.file("node.data"), converted = dir_.file("converted.data");
  // With its call frame information too: V8's own is taken (a warning would say otherwise).
  std::string inside = "mount --bind " + dir_.path() + " /mnt && mount -t tmpfs arec-test /tmp " +
                       "&& cd /tmp && exec node --perf-prof --perf-prof-unwinding-info " +
                       "--logfile=/dev/null /mnt/hot.js";
  run({arec_binary(), "-q", "-e", "cpu-clock", "-o", data, "--", "unshare", "--pid", "--fork",
       "--mount", "--mount-proc", "sh", "-c", inside});
  EXPECT_LT(hot_share(data), 0.01) << "perf cannot name code it has no perf map or ELF of";

  test::command_result conversion = run({arec_binary(), "convert", "-i", data, "-o", converted});
  EXPECT_EQ(conversion.err.find("warning"), std::string::npos) << conversion.err;
  EXPECT_GT(hot_share(converted), 0.5) << "most of node's samples are in jsHotFunction";
  std::size_t with_frames = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(home_ + "/.debug/jit"))
    if (entry.is_regular_file() && entry.path().filename() == "elf" &&
        test::run_command({"readelf", "-S", entry.path().string()}).out.find(".eh_frame_hdr") !=
            std::string::npos)
      ++with_frames;
  EXPECT_GE(with_frames, 1u) << "the optimized jsHotFunction's CFI, in the mapping";

  // hotspot's parser, with the test's HOME: its build-id cache is $HOME/.debug.
  run({hotspot_parser_path, "--input", converted, "--output", dir_.file("converted.stream")});
  std::ifstream in(dir_.file("converted.stream"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string error;
  std::optional<test::perfparser_totals> totals =
      test::read_perfparser_stream(std::as_bytes(std::span{bytes}), error);
  ASSERT_TRUE(totals) << error;
  std::uint64_t samples = totals->events.at("cpu-clock").samples, hot = 0;
  std::string named;  // the functions hotspot charged samples to, for a failure's message
  for (const auto& [key, cost] : totals->symbols) {
    if (key.second.find("jsHotFunction") != std::string::npos) hot += cost.self_samples;
    if (cost.self_samples * 50 > samples) named += key.second + "\n";
  }
  EXPECT_GT(hot * 2, samples) << hot << " of " << samples << " samples in jsHotFunction; "
                              << "over 2 % in:\n" << named;
}

// The same node program recorded by perf (-k mono, as perf inject needs) and by arec: perf
// inject --jit writes an ELF per JIT function, arec convert one per code generation, and both
// files name jsHotFunction in perf report.
TEST_F(ConvertJitdump, WritesAFileAGenerationWherePerfInjectWritesOneAFunction) {
  std::string perf_data = dir_.file("perf.data"), injected = dir_.file("injected.data");
  std::vector<std::string> perf{"/usr/bin/perf", "record", "-q", "-k", "mono", "-e", "cpu-clock",
                                "-o", perf_data, "--"};
  std::vector<std::string> node = node_in_dir();
  perf.insert(perf.end(), node.begin(), node.end());
  run(perf);
  run({"/usr/bin/perf", "inject", "--jit", "-i", perf_data, "-o", injected});
  std::size_t perf_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path()))
    if (entry.path().filename().string().starts_with("jitted-")) ++perf_files;
  EXPECT_GT(hot_share(injected), 0.5) << "perf inject names node's code";

  std::string data = dir_.file("node.data"), converted = dir_.file("converted.data");
  std::vector<std::string> arec{arec_binary(), "-q", "-e", "cpu-clock", "-o", data, "--"};
  arec.insert(arec.end(), node.begin(), node.end());
  run(arec);
  std::size_t cache_before = files_under(home_ + "/.debug/jit");
  run({arec_binary(), "convert", "-q", "-i", data, "-o", converted});
  std::size_t arec_files = files_under(home_ + "/.debug/jit") - cache_before;
  EXPECT_GT(hot_share(converted), 0.5) << "arec convert names node's code";

  ::testing::Test::RecordProperty("perf_inject_files", static_cast<int>(perf_files));
  ::testing::Test::RecordProperty("arec_convert_files", static_cast<int>(arec_files));
  EXPECT_GE(arec_files, 1u);
  EXPECT_GT(perf_files, 20 * arec_files) << perf_files << " files from perf inject, "
                                          << arec_files << " from arec convert";
}

}  // namespace
}  // namespace arec::e2e
