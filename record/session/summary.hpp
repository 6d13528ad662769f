// summary: what the recorder says at the end: per streaming thread (with --threads or -v),
// per ring that lost samples, the totals, what to try against losses, and how to look at it.
// The facts are gathered from the recording (summary_facts_of), and the text is a pure function
// of them (summary_text), which the tests read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "record/record_options.hpp"
#include "record/session/streaming_thread.hpp"
#include "record/streaming/stream_stats.hpp"
#include "symbols/build_id_cache.hpp"

namespace arec::record {

struct compression_totals {
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  double ratio() const {
    return bytes_out ? static_cast<double>(bytes_in) / static_cast<double>(bytes_out) : 0;
  }
};

// Where the recording went, for the summary: a file or directory, or standard output.
struct written_output {
  std::string path;             // "-" for standard output; with rotation the last file
  std::uint64_t bytes = 0;      // on disk, of `path`
  std::uint64_t files = 1;      // --switch-output: the files written, the last one included
  std::uint64_t all_bytes = 0;  // of them all, those --switch-max-files removed included
  std::string failure;          // after a failed write: what it was and what it cost
};

// One streaming thread's line (with --threads or -v).
struct thread_summary {
  std::string cpus, affinity, ran_on;  // CPU lists as the user writes them
  stream_stats stats;
  double cpu_seconds = 0;
};

// A ring that lost samples: its CPU, or -1 for a task's ring (--per-thread).
struct ring_loss {
  int cpu = -1;
  std::uint64_t lost = 0;
};

// --off-cpu: the offcpu-time samples written, the time they hold, and the blocked switch-outs
// that came without a sampled stack (not counted as off-CPU time).
struct off_cpu_totals {
  std::uint64_t samples = 0;
  std::uint64_t blocked_ns = 0;
  std::uint64_t unattributed = 0;
  std::uint64_t incomplete = 0;  // stacks not completed from CFI (frame pointers' kept)
};

struct summary_facts {
  bool per_thread_lines = false;  // --threads or -v
  bool transient = false;         // --push without -o: the files are gone once pushed
  std::vector<thread_summary> threads;
  std::vector<ring_loss> losses;
  stream_stats total;
  written_output output;
  compression_totals compression;
  std::vector<std::string> remedies;      // what to try against the losses (loss_advice)
  std::optional<off_cpu_totals> off_cpu;  // --off-cpu
  std::optional<symbols::debug_fetch_totals> debuginfod;  // DEBUGINFOD_URLS set, a cache
};

summary_facts summary_facts_of(const record_options& options, const written_output& output,
                               const std::vector<std::unique_ptr<streaming_thread>>& threads,
                               const stream_stats& total, const compression_totals& compression,
                               std::uint64_t ring_pages);

// The summary's lines, each ending in a newline.
std::string summary_text(const summary_facts& facts);

// summary_text of the recording on stderr, unless -q.
void print_summary(const record_options& options, const written_output& output,
                   const std::vector<std::unique_ptr<streaming_thread>>& threads,
                   const stream_stats& total, const compression_totals& compression,
                   std::uint64_t ring_pages, std::optional<off_cpu_totals> off_cpu = {},
                   std::optional<symbols::debug_fetch_totals> debuginfod = {});

}  // namespace arec::record
