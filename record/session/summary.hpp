// summary: what the recorder says at the end: per streaming thread (with --threads or -v),
// per ring that lost samples, the totals, what to try against losses, and how to look at it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "record/record_options.hpp"
#include "record/session/streaming_thread.hpp"
#include "record/streaming/stream_stats.hpp"

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

void print_summary(const record_options& options, const written_output& output,
                   const std::vector<std::unique_ptr<streaming_thread>>& threads,
                   const stream_stats& total, const compression_totals& compression,
                   std::uint64_t ring_pages);

}  // namespace arec::record
