// convert_options: what `arec convert` is asked to do, as the command line (cli/options) sets it.
#pragma once

#include <string>

namespace arec::convert {

struct convert_options {
  std::string input = "perf.data";             // -i/--input: what arec records by default
  std::string output = "perf.converted.data";  // -o/--output
  bool keep_compressed = false;                // --keep-compressed
  int compression_level = 0;                   // -z/--compress = 1; --compression-level N, 1..22
  bool salvage = false;                        // --salvage
  // offcpu-time samples also as hotspot's sched:sched_switch samples and SWITCH records;
  // --no-off-cpu-switches turns it off (convert/off_cpu_switches.hpp).
  bool off_cpu_switches = true;
  bool quiet = false;  // -q/--quiet
  int verbose = 0;     // -v/--verbose, counted
};

}  // namespace arec::convert
