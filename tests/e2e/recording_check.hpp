// recording_check: what every finished arec recording must satisfy, checked with gtest
// expectations: perf reads it without warnings and prints as many samples as arec counted; with
// --threads also a directory PATH/{data,data.0..data.K-1} with one data.N per per-thread line,
// sizes and counts that add up to the summary, and threads that ran where they were allowed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arec_summary.hpp"
#include "perf_script.hpp"
#include "support/child_process.hpp"
#include "thread_summary.hpp"

namespace arec::e2e {

struct checked_recording {
  arec_summary summary;
  perf_script script;  // perf script -i PATH
};

// Checks `run` (an arec recording without --threads that exited 0) against the file `path`: its
// summary names `path`, perf report reads it without a warning and perf script prints as many
// samples as the summary counts. Every broken property is a gtest failure; the caller stops on
// ::testing::Test::HasFailure() before relying on the returned fields.
checked_recording check_recording(const std::string& path, const test::command_result& run);

struct threaded_recording {
  arec_summary summary;
  std::vector<thread_summary> threads;
  perf_script script;  // perf script -i DIR
};

// Checks `run` (an arec --threads recording that exited 0) against the directory `dir` it wrote.
// Every broken property is a gtest failure; the caller stops on ::testing::Test::HasFailure()
// before relying on the returned fields.
threaded_recording check_threaded_recording(const std::string& dir,
                                            const test::command_result& run);

// The names in directory `path`, sorted; empty when it cannot be read.
std::vector<std::string> directory_entries(const std::string& path);

// The size of the file at `path`; a gtest failure and 0 when it cannot be stat'ed.
std::uint64_t file_size(const std::string& path);

// The online cpus of this machine (/sys/devices/system/cpu/online).
std::vector<int> online_cpus();

}  // namespace arec::e2e
