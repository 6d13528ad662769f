// Recording a workload started by the recorder: samples land where the workload spends its
// time, perf reads the file without warnings, and arec's summary counts what perf sees.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <sstream>
#include <string_view>

#include "arec_summary.hpp"
#include "host/proc_maps.hpp"
#include "perf_report.hpp"
#include "perf_script.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::e2e {
namespace {

TEST(RecordWorkload, PutsHotLoopSamplesInHotFunction) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("workload.data");

  test::command_result run = test::run_command(
      rec.command({"-o", data, "-F", "1000", "--", test_program("hot_loop"), "1000"}));
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();

  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  sample_share hot = share_in(script.samples, "hot_function", "hot_loop",
                              [](const script_sample& s) { return s.comm == "hot_loop"; });
  ASSERT_GE(hot.total, 100u) << "hot_loop samples; perf script:\n" << excerpt(script.run.out);
  EXPECT_GE(hot.fraction(), 0.90) << hot.matching << " of " << hot.total
                                  << " hot_loop samples in hot_function; perf script:\n"
                                  << excerpt(script.run.out);

  perf_report report = run_perf_report(data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  EXPECT_FALSE(has_warning_besides_lost_chunks(report.run)) << report.run.err;
  ASSERT_FALSE(report.rows.empty()) << report.run.out;
  // The recording holds only the workload, so its hot function tops the whole report.
  EXPECT_EQ(report.rows[0].dso, "hot_loop") << report.run.out;
  EXPECT_EQ(report.rows[0].symbol, "hot_function") << report.run.out;
  EXPECT_GE(report.rows[0].percent, 90.0) << report.run.out;

  if (rec.is_arec()) {
    std::optional<arec_summary> summary = find_arec_summary(run.err);
    ASSERT_TRUE(summary) << "no summary line on stderr:\n" << run.err;
    EXPECT_EQ(summary->samples, sample_records(data)) << run.err;
    EXPECT_EQ(summary->path, data);
    EXPECT_GT(summary->bytes, 0u);
  }
}

// Whether `maps` (a /proc/PID/maps) maps the shared library `library`: a file whose name is it
// and then its version or soname ("libdw" matches libdw-0.188.so, not a directory wt-libdw/).
bool maps_library(const std::string& maps, std::string_view library) {
  std::istringstream lines(maps);
  for (std::string line; std::getline(lines, line);) {
    std::optional<host::maps_entry> entry = host::parse_maps_line(line);
    if (!entry) continue;
    std::string_view name = entry->path.substr(entry->path.rfind('/') + 1);
    if (name.starts_with(library) && name.size() > library.size() &&
        (name[library.size()] == '.' || name[library.size()] == '-'))
      return true;
  }
  return false;
}

// A recording maps only what recording needs: libcurl (with its ~40 libraries, ~6 MB resident)
// is loaded by --push alone, libarchive by `arec archive`, libdw by the export of --call-graph
// dwarf samples. The workload reads its parent's (the recorder's) mappings.
TEST(RecordWorkload, TheRecorderDoesNotMapTheLibrariesOfOtherCommands) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  if (!rec.is_arec()) GTEST_SKIP() << "arec's own footprint";
  test::temp_dir dir;
  test::command_result run = test::run_command(
      rec.command({"-q", "-o", dir.file("maps.data"), "--", "sh", "-c", "cat /proc/$PPID/maps"}));
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  ASSERT_NE(run.out.find(std::filesystem::canonical(arec_binary()).string()), std::string::npos)
      << "not the recorder's mappings:\n"
      << run.out;
  EXPECT_TRUE(maps_library(run.out, "liburing")) << run.out;
  EXPECT_FALSE(maps_library(run.out, "libcurl")) << run.out;
  EXPECT_FALSE(maps_library(run.out, "libarchive")) << run.out;
  EXPECT_FALSE(maps_library(run.out, "libdw")) << run.out;
}

}  // namespace
}  // namespace arec::e2e
