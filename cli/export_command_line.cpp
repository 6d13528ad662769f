#include "cli/export_command_line.hpp"

#include <array>

#include "cli/option_table.hpp"
#include "fleet/otlp_environment.hpp"

namespace arec::cli {
namespace {

struct export_state {
  exporting::export_options options;
  bool help = false;
  bool finished() const { return help; }
};

using export_spec = option_spec<export_state>;
using enum argument_kind;
using enum option_group;

constexpr std::array export_table{
    export_spec{"input", 'i', required, "FILE",
                "read the recording FILE (a file or a --threads directory); repeat for the files "
                "of a rotated recording",
                "perf.data", files,
                [](export_state& s, const option_use& use) {
                  if (use.value.empty()) reject(use, "the input file name is empty");
                  s.options.inputs.emplace_back(use.value);
                }},
    export_spec{"output", 'o', required, "FILE", "write the profile to FILE ('-': standard output)",
                "INPUT.pb.gz, INPUT.folded or INPUT.otlp.pb", files,
                [](export_state& s, const option_use& use) {
                  if (use.value.empty()) reject(use, "the output file name is empty");
                  s.options.output = std::string(use.value);
                }},
    export_spec{"format", 0, required, "FORMAT",
                "pprof (gzipped profile.proto), folded (collapsed stacks for flamegraph.pl) or "
                "otlp (an OpenTelemetry ExportProfilesServiceRequest, not compressed)",
                "pprof", output,
                [](export_state& s, const option_use& use) {
                  if (use.value == "pprof")
                    s.options.format = exporting::export_format::pprof;
                  else if (use.value == "folded")
                    s.options.format = exporting::export_format::folded;
                  else if (use.value == "otlp")
                    s.options.format = exporting::export_format::otlp;
                  else
                    reject(use, "unknown format: use pprof, folded or otlp");
                }},
    export_spec{"salvage", 0, none, "",
                "export what can be read from a truncated or damaged recording", "", output,
                [](export_state& s, const option_use&) { s.options.salvage = true; }},
    export_spec{"no-inline", 0, none, "",
                "show no inlined functions (read from DWARF where a debug file is at hand): one "
                "frame per address, as perf report without --inline",
                "", output,
                [](export_state& s, const option_use&) { s.options.inline_frames = false; }},
    export_spec{"quiet", 'q', none, "", "print no warnings or messages", "", output,
                [](export_state& s, const option_use&) { s.options.quiet = true; }},
    export_spec{"help", 'h', none, "", "show this help and exit", "", help,
                [](export_state& s, const option_use&) { s.help = true; }},
};

}  // namespace

std::variant<exporting::export_options, help_request> parse_export_command_line(
    std::span<const char* const> args) {
  export_state state;
  std::size_t rest = parse_options(args, export_table, state);
  if (state.help) return help_request{export_help_text()};
  if (rest < args.size())
    throw base::usage_error("unexpected argument " + base::quoted(args[rest]) +
                            " (name files with -i and -o)");
  if (state.options.format == exporting::export_format::otlp) {
    for (const fleet::label& attribute :
         fleet::otlp_resource_attributes({}, fleet::process_environment))
      state.options.resource.attributes.push_back({attribute.name, attribute.value});
  }
  return state.options;
}

std::string export_help_text() {
  std::string out =
      "Usage: arec export [OPTIONS]\n"
      "\n"
      "Exports a recording's samples as a pprof profile (go tool pprof, Grafana Pyroscope,\n"
      "Parca), as collapsed stacks (flamegraph.pl, speedscope) or as an OpenTelemetry\n"
      "profiles request (OTLP, the layout of opentelemetry-proto " +
      std::string(exporting::otlp_proto_release) +
      "; OTEL_SERVICE_NAME and\nOTEL_RESOURCE_ATTRIBUTES set its resource).\n";
  append_option_help(out, export_table);
  out +=
      "\nExamples:\n"
      "  arec export -i perf.data -o profile.pb.gz && go tool pprof -top profile.pb.gz\n"
      "  arec export --format=folded -o - | flamegraph.pl > flame.svg\n"
      "  arec export --format=otlp -o req.pb && curl -H 'Content-Type: application/x-protobuf'\n"
      "       --data-binary @req.pb http://collector:4318/v1development/profiles\n";
  return out;
}

std::vector<std::string> export_option_names() {
  return option_names(export_table);
}

}  // namespace arec::cli
