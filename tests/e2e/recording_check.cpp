#include "recording_check.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "host/cpu_list.hpp"
#include "perf_report.hpp"

namespace arec::e2e {

std::vector<std::string> directory_entries(const std::string& path) {
  std::vector<std::string> names;
  std::error_code error;
  for (auto it = std::filesystem::directory_iterator(path, error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::uint64_t file_size(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    ADD_FAILURE() << "cannot stat " << path;
    return 0;
  }
  return static_cast<std::uint64_t>(info.st_size);
}

std::vector<int> online_cpus() {
  std::ifstream file("/sys/devices/system/cpu/online");
  std::string text;
  std::getline(file, text);
  return host::parse_cpu_list(text);
}

namespace {

// perf report reads `path` cleanly and perf script prints `samples` samples.
perf_script expect_perf_reads(const std::string& path, std::uint64_t samples,
                              const test::command_result& run) {
  perf_report report = run_perf_report(path);
  EXPECT_EQ(report.run.exit_code, 0) << report.run.describe();
  // A busy machine may overflow a ring: the file counts it (LOST), and so does arec's summary.
  EXPECT_FALSE(has_warning_besides_lost_chunks(report.run)) << report.run.err;
  EXPECT_FALSE(report.rows.empty()) << report.run.out;

  perf_script script = run_perf_script(path);
  EXPECT_EQ(script.run.exit_code, 0) << script.run.describe();
  EXPECT_EQ(sample_records(path), samples) << "perf script must print every sample arec counted:\n"
                                           << run.err;
  return script;
}

}  // namespace

checked_recording check_recording(const std::string& path, const test::command_result& run) {
  checked_recording result;
  std::optional<arec_summary> summary = find_arec_summary(run.err);
  if (!summary) {
    ADD_FAILURE() << "no summary line on stderr:\n" << run.err;
    return result;
  }
  result.summary = *summary;
  EXPECT_EQ(summary->path, path);
  EXPECT_EQ(summary->bytes, file_size(path)) << run.err;
  result.script = expect_perf_reads(path, summary->samples, run);
  return result;
}

threaded_recording check_threaded_recording(const std::string& dir,
                                            const test::command_result& run) {
  threaded_recording result;
  std::optional<arec_summary> summary = find_arec_summary(run.err);
  if (!summary) {
    ADD_FAILURE() << "no summary line on stderr:\n" << run.err;
    return result;
  }
  result.summary = *summary;
  EXPECT_EQ(summary->path, dir);
  try {
    result.threads = find_thread_summaries(run.err);
  } catch (const std::invalid_argument& error) {
    ADD_FAILURE() << error.what();
    return result;
  }
  if (result.threads.empty()) {
    ADD_FAILURE() << "no per-thread lines with --threads:\n" << run.err;
    return result;
  }

  // One data.N per streaming thread, numbered like the thread lines, and nothing else.
  std::vector<std::string> expected_files{"data"};
  for (std::size_t i = 0; i < result.threads.size(); ++i) {
    EXPECT_EQ(result.threads[i].index, i) << run.err;
    expected_files.push_back("data." + std::to_string(i));
  }
  std::sort(expected_files.begin(), expected_files.end());
  EXPECT_EQ(directory_entries(dir), expected_files);

  std::uint64_t samples = 0, lost = 0, bytes = file_size(dir + "/data");
  std::vector<int> drained;
  for (const thread_summary& t : result.threads) {
    SCOPED_TRACE("thread " + std::to_string(t.index));
    samples += t.samples;
    lost += t.lost;
    std::uint64_t size = file_size(dir + "/data." + std::to_string(t.index));
    EXPECT_EQ(size, t.bytes) << "a thread's bytes are its data file";
    bytes += size;
    EXPECT_FALSE(t.ran_on.empty()) << "every streaming thread runs at least its final drain";
    EXPECT_TRUE(
        std::includes(t.affinity.begin(), t.affinity.end(), t.ran_on.begin(), t.ran_on.end()))
        << "ran_on " << host::format_cpu_list(t.ran_on) << " is outside affinity "
        << host::format_cpu_list(t.affinity);
    drained.insert(drained.end(), t.cpus.begin(), t.cpus.end());
  }
  EXPECT_EQ(samples, summary->samples) << "per-thread samples must add up:\n" << run.err;
  EXPECT_EQ(lost, summary->lost) << run.err;
  EXPECT_EQ(bytes, summary->bytes) << "the summary counts every file of the directory";
  std::sort(drained.begin(), drained.end());
  EXPECT_EQ(std::adjacent_find(drained.begin(), drained.end()), drained.end())
      << "a cpu's ring is drained by one thread only: " << run.err;

  result.script = expect_perf_reads(dir, summary->samples, run);
  return result;
}

}  // namespace arec::e2e
