// thread_summary: the per-streaming-thread lines arec prints before its summary with --threads
// or -v, "arec: thread <i>: cpus=<list> affinity=<list> ran_on=<list> samples=<n> lost=<n>
// bytes=<n> drains=<n> cpu_time=<s>s", and the -z line "arec: compressed <in> bytes to <out>
// (ratio <r>)".
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace arec::e2e {

struct thread_summary {
  std::size_t index = 0;
  std::vector<int> cpus;      // the rings it drained, ascending
  std::vector<int> affinity;  // where it was allowed to run
  std::vector<int> ran_on;    // where it was seen running
  std::uint64_t samples = 0;
  std::uint64_t lost = 0;
  std::uint64_t bytes = 0;
  std::uint64_t drains = 0;
  double cpu_seconds = 0;
};

// Every thread line in `stderr_text`, in the order printed. A line that starts with
// "arec: thread " but does not match the format exactly throws std::invalid_argument quoting it,
// so a changed format fails the test instead of looking like "no threads".
std::vector<thread_summary> find_thread_summaries(std::string_view stderr_text);

struct compression_summary {
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  double ratio = 0;
};

// The "arec: compressed ..." line in `stderr_text`, or nullopt when there is none in the exact
// format.
std::optional<compression_summary> find_compression_summary(std::string_view stderr_text);

}  // namespace arec::e2e
