// perf_script: `perf script` run on a recorded file, each sample parsed into its task and
// frames, so tests can ask where one command's samples landed and what called them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/child_process.hpp"

namespace arec::e2e {

struct script_frame {
  std::uint64_t ip = 0;
  std::string symbol;  // "[unknown]" when perf could not resolve it
  std::string dso;     // the path in parentheses, e.g. "/usr/lib/.../libc.so.6"
};

struct script_sample {
  std::string comm;
  int tid = 0;
  // The sampled instruction first, then its callers when the file has call chains.
  std::vector<script_frame> frames;
};

// Parses the output of `perf script -F comm,tid,ip,sym,dso`: one line per sample, or with
// call chains a "comm tid" line followed by one indented line per frame.
std::vector<script_sample> parse_perf_script(std::string_view text);

struct perf_script {
  test::command_result run;
  std::vector<script_sample> samples;
};

// Runs `perf script -i FILE -F comm,tid,ip,sym,dso` and parses its stdout.
perf_script run_perf_script(const std::string& data_file);

// The file name part of a path: "/a/b/hot_loop" -> "hot_loop".
std::string_view file_name(std::string_view path);

// Whether the sampled instruction (frame 0) is in `symbol` of a DSO named `dso_file_name`.
bool sampled_in(const script_sample& sample, std::string_view symbol,
                std::string_view dso_file_name);

// Of the samples `belongs` accepts that were taken in the program's own code (frame 0 in a DSO
// named `dso_file_name`), how many were taken in `symbol`. Kernel and library time is left out
// of both counts: a busy machine adds preemption and page faults to any task, and a test's
// share must not depend on how busy the machine is.
struct sample_share {
  std::size_t matching = 0;
  std::size_t total = 0;
  double fraction() const { return total ? static_cast<double>(matching) / total : 0.0; }
};

template <typename Belongs>
sample_share share_in(const std::vector<script_sample>& samples, std::string_view symbol,
                      std::string_view dso_file_name, Belongs belongs) {
  sample_share share;
  for (const script_sample& sample : samples) {
    if (!belongs(sample) || sample.frames.empty() ||
        file_name(sample.frames[0].dso) != dso_file_name)
      continue;
    ++share.total;
    if (sampled_in(sample, symbol, dso_file_name)) ++share.matching;
  }
  return share;
}

// At most `limit` characters of `text`, for assertion messages that stay readable.
std::string_view excerpt(std::string_view text, std::size_t limit = 3000);

}  // namespace arec::e2e
