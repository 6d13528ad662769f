// Compressed recordings (-z, --compression-level): perf decompresses every sample arec counted,
// call chains included, the header carries the compressed feature, and the summary shows a real
// reduction. Levels outside zstd's 1-22 are usage errors.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "arec_summary.hpp"
#include "perf_report.hpp"
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

// `perf report --header-only` names the compression: "# compressed : Zstd, level = N, ...".
void expect_compressed_header(const std::string& data, int level) {
  test::command_result header = test::run_command({"perf", "report", "--header-only", "-i", data});
  ASSERT_EQ(header.exit_code, 0) << header.describe();
  EXPECT_NE(header.out.find("# compressed : Zstd, level = " + std::to_string(level) + ","),
            std::string::npos)
      << header.out;
}

void expect_real_compression(const test::command_result& run) {
  std::optional<compression_summary> compression = find_compression_summary(run.err);
  ASSERT_TRUE(compression) << "no compression line on stderr:\n" << run.err;
  EXPECT_GT(compression->ratio, 1.0) << run.err;
  EXPECT_GT(compression->bytes_in, compression->bytes_out) << run.err;
}

// Of hot_loop's samples in hot_function, the share whose caller is caller_function: the call
// chains came through compression intact.
void expect_intact_call_chains(const perf_script& script) {
  std::size_t in_hot = 0, called_right = 0;
  for (const script_sample& s : script.samples) {
    if (!sampled_in(s, "hot_function", "hot_loop")) continue;
    ++in_hot;
    if (s.frames.size() >= 2 && s.frames[1].symbol == "caller_function") ++called_right;
  }
  ASSERT_GT(in_hot, 0u) << "perf script:\n" << excerpt(script.run.out);
  EXPECT_GE(static_cast<double>(called_right) / static_cast<double>(in_hot), 0.9)
      << called_right << " of " << in_hot << " hot_function samples called from caller_function";
}

TEST(RecordCompression, SingleFileWithCallGraphsReadsBackEverySample) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  test::temp_dir dir;
  const std::string data = dir.file("compressed.data");

  test::command_result run = test::run_command(
      rec.command({"-z", "-g", "-o", data, "-F", "1000", "--", test_program("hot_loop"), "500"}),
      60s);
  ASSERT_EQ(run.exit_code, 0) << rec.describe() << ": " << run.describe();
  expect_compressed_header(data, 1);

  perf_report report = run_perf_report(data);
  ASSERT_EQ(report.run.exit_code, 0) << report.run.describe();
  EXPECT_FALSE(has_warning_besides_lost_chunks(report.run)) << report.run.err;

  perf_script script = run_perf_script(data);
  ASSERT_EQ(script.run.exit_code, 0) << script.run.describe();
  expect_intact_call_chains(script);

  if (rec.is_arec()) {
    std::optional<arec_summary> summary = find_arec_summary(run.err);
    ASSERT_TRUE(summary) << "no summary line on stderr:\n" << run.err;
    EXPECT_EQ(summary->samples, sample_records(data)) << run.err;
    expect_real_compression(run);
  }
}

TEST(RecordCompression, PerCpuThreadsWithCallGraphsReadBackEverySample) {
  if (auto why = missing_prerequisite(perf_scope::system_wide)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  if (!rec.is_arec()) GTEST_SKIP() << "arec's summary lines";
  test::temp_dir dir;
  const std::string out = dir.file("compressed-threads.data");

  test::command_result run =
      test::run_command(rec.command({"--compression-level=3", "-g", "--threads=cpu", "-a", "-o",
                                     out, "-F", "1000", "--", test_program("hot_loop"), "500"}),
                        60s);
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  threaded_recording recording = check_threaded_recording(out, run);
  if (HasFailure()) return;
  expect_compressed_header(out, 3);
  expect_real_compression(run);
  expect_intact_call_chains(recording.script);
}

TEST(RecordCompression, LevelsOutsideOneToTwentyTwoAreUsageErrors) {
  recorder rec = recorder::from_environment();
  if (!rec.is_arec()) GTEST_SKIP() << "perf accepts other levels";
  test::temp_dir dir;
  const std::string data = dir.file("never.data");
  for (const std::string level : {"0", "23"}) {
    SCOPED_TRACE("--compression-level=" + level);
    test::command_result run = test::run_command(rec.command(
        {"--compression-level=" + level, "-o", data, "--", test_program("hot_loop"), "100"}));
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    EXPECT_TRUE(run.err.starts_with("arec: error: --compression-level=" + level + ": ")) << run.err;
    EXPECT_NE(run.err.find("1 to 22"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
    struct stat info;
    EXPECT_NE(::lstat(data.c_str(), &info), 0) << "a rejected level must not create " << data;
  }
}

}  // namespace
}  // namespace arec::e2e
