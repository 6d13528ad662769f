// reporter: `arec report`: reads recordings through export's reader and symbolizer into one
// profile (and --diff's base into another) and writes the HTML page of it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/report_options.hpp"

namespace arec::report {

// The timelines' resolution: a 10 s recording gets 100 ms buckets, unless that would make
// more rows than timeline_rows (docs/performance.md, "arec report's page").
inline constexpr std::uint32_t timeline_buckets = 100;
inline constexpr std::size_t timeline_rows = 300'000;

struct report_result {
  std::string output;
  std::uint64_t samples = 0;
  std::uint64_t lost = 0;
  std::size_t nodes = 0;
  std::uint64_t bytes = 0;
  std::vector<std::string> warnings;  // export's, as it words them
};

// Writes the page of options.inputs to output_path(options), replacing an earlier file only
// once the new one is complete. Throws as exporting::export_recording does.
report_result write_report(const report_options& options);

}  // namespace arec::report
