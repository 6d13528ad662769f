// exporter: `arec export` — reads recordings through convert's reader (single files, --threads
// directories, compressed records, salvage) in time order into a profile_builder and writes the
// profile as gzipped pprof or as folded stacks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/export_options.hpp"
#include "export/profile.hpp"
#include "perf_data/feature_encoder.hpp"
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

// A recording read into one profile: what `arec export` writes and `arec report` draws.
struct recorded_profile {
  profile result;
  export_report report;             // all but output_bytes; output is the path that was protected
  perf_data::feature_set features;  // the first input's header features (host, command line)
  std::vector<std::string> events;  // the first input's event names, in file order
  std::uint64_t lost = 0;  // samples the kernel lost (LOST and LOST_SAMPLES records), summed
  std::uint64_t bucket_ns = 0;  // the time_bucket label's unit; 0 when not asked for
};

// Reads `inputs` (empty: perf.data) as one profile, symbolized on this host. `output`, when not
// empty and not "-", must not be one of the inputs (base::usage_error). With `time_buckets`,
// samples are also told apart by when they were taken, in about that many buckets of the
// recording's span (its SAMPLE_TIME feature; 100 ms buckets without it), each labelled
// "time_bucket"; recorded_profile::bucket_ns says how long a bucket is. `inline_frames` false:
// no functions inlined at a location (--no-inline). Throws as export_recording does.
recorded_profile read_recording(const std::vector<std::string>& inputs, bool salvage,
                                const std::string& output, std::uint32_t time_buckets = 0,
                                bool inline_frames = true);

// Exports options.inputs. Throws perf_data::format_error for malformed input, std::system_error
// for failed system calls, base::usage_error for inputs that record different events.
export_report export_recording(const export_options& options);

}  // namespace arec::exporting
