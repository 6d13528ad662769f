// export_options: what `arec export` is asked to do, as the command line (cli/) sets it.
#pragma once

#include <string>
#include <vector>

#include "export/otlp_writer.hpp"

namespace arec::exporting {

enum class export_format { pprof, folded, otlp };

struct export_options {
  // -i, repeatable: recordings (files or --threads directories) exported as one profile, e.g.
  // the files of a rotated recording. Empty: perf.data.
  std::vector<std::string> inputs;
  // -o; empty: the first input + ".pb.gz", ".folded" or ".otlp.pb"; "-": stdout
  std::string output;
  export_format format = export_format::pprof;
  otlp_resource resource;  // --format=otlp: what the request says of where it comes from
  bool salvage = false;    // --salvage
  bool quiet = false;      // -q
  bool inline_frames = true;  // --no-inline turns off the functions inlined at a location
};

// The output file name `options` resolves to.
std::string output_path(const export_options& options);

}  // namespace arec::exporting
