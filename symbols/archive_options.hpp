// archive_options: what `arec archive` is asked to do, as its command line sets it.
#pragma once

#include <string>

namespace arec::symbols {

struct archive_options {
  std::string input = "perf.data";  // -i/--input or the one argument, as `perf archive [FILE]`
  std::string output;               // -o/--output; empty: INPUT.tar.bz2, as perf archive names it
  bool quiet = false;               // -q/--quiet
};

}  // namespace arec::symbols
