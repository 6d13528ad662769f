// export_options: what `arec export` is asked to do, as the command line (cli/) sets it.
#pragma once

#include <string>
#include <vector>

namespace arec::exporting {

enum class export_format { pprof, folded };

struct export_options {
  // -i, repeatable: recordings (files or --threads directories) exported as one profile, e.g.
  // the files of a rotated recording. Empty: perf.data.
  std::vector<std::string> inputs;
  std::string output;  // -o; empty: the first input + ".pb.gz" or ".folded"; "-": stdout
  export_format format = export_format::pprof;
  bool salvage = false;  // --salvage
  bool quiet = false;    // -q
};

// The output file name `options` resolves to.
std::string output_path(const export_options& options);

}  // namespace arec::exporting
