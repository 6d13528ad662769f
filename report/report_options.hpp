// report_options: what `arec report` is asked to do, as the command line (cli/) sets it.
#pragma once

#include <string>
#include <vector>

namespace arec::report {

struct report_options {
  // -i, repeatable: recordings read as one profile, as `arec export` reads them. Empty:
  // perf.data.
  std::vector<std::string> inputs;
  std::string output;  // -o; empty: the first input + ".html"
  std::string diff_base;  // --diff BASE: a recording to compare with; empty for none
  bool salvage = false;
  bool quiet = false;
};

// The page's path `options` resolve to.
std::string output_path(const report_options& options);

}  // namespace arec::report
