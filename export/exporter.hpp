// exporter: `arec export` — reads recordings through convert's reader (single files, --threads
// directories, compressed records, salvage) in time order into a profile_builder and writes the
// profile as gzipped pprof or as folded stacks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/export_options.hpp"
#include "export/unnamed_frames.hpp"

namespace arec::exporting {

struct export_report {
  std::string output;  // where it was written ("-": stdout)
  std::size_t inputs = 0;
  std::uint64_t records = 0;
  std::uint64_t samples = 0;      // exported
  std::uint64_t bad_samples = 0;  // too short for their sample_type, left out
  // Frame-pointer chains (arec -g) that could not be completed (profile_builder), and those
  // completed over a frameless frame that saved rbp.
  std::uint64_t chains_not_completed = 0;
  std::uint64_t chains_unverified = 0;
  unnamed_frames unnamed;         // what stays unnamed (export/unnamed_frames)
  std::size_t stacks = 0;         // distinct stacks with labels
  std::size_t locations = 0;
  std::size_t functions = 0;
  std::size_t mappings = 0;
  std::uint64_t output_bytes = 0;
  std::vector<std::string> notes;  // salvage
  // Records left out as perf 6.1 could not read them either (convert/record_check.hpp), one
  // line per problem: "dropped N records ...: PROBLEM (the first at FILE: offset N)".
  std::vector<std::string> warnings;
};

// Exports options.inputs. Throws perf_data::format_error for malformed input, std::system_error
// for failed system calls, base::usage_error for inputs that record different events.
export_report export_recording(const export_options& options);

}  // namespace arec::exporting
