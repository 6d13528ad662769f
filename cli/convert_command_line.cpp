#include "cli/convert_command_line.hpp"

#include <array>

#include "cli/option_table.hpp"
#include "cli/option_values.hpp"

namespace arec::cli {
namespace {

struct convert_state {
  convert::convert_options options;
  bool help = false;
  bool finished() const { return help; }
};

using convert_spec = option_spec<convert_state>;
using enum argument_kind;
using enum option_group;

constexpr std::array convert_table{
    convert_spec{"input", 'i', required, "FILE", "read the arec recording FILE", "perf.data", files,
                 [](convert_state& s, const option_use& use) {
                   if (use.value.empty()) reject(use, "the input file name is empty");
                   s.options.input = std::string(use.value);
                 }},
    convert_spec{"output", 'o', required, "FILE", "write the perf.data file FILE",
                 "perf.converted.data", files,
                 [](convert_state& s, const option_use& use) {
                   if (use.value.empty()) reject(use, "the output file name is empty");
                   s.options.output = std::string(use.value);
                 }},
    convert_spec{"keep-compressed", 0, none, "",
                 "keep the output compressed, at the recording's zstd level", "", output,
                 [](convert_state& s, const option_use&) { s.options.keep_compressed = true; }},
    convert_spec{"compress", 'z', none, "", "compress the output with zstd level 1", "off", output,
                 [](convert_state& s, const option_use&) {
                   if (s.options.compression_level == 0) s.options.compression_level = 1;
                 }},
    convert_spec{"compression-level", 0, required, "N",
                 "compress the output with zstd level N, 1 (fastest) to 22 (smallest)", "", output,
                 [](convert_state& s, const option_use& use) {
                   s.options.compression_level = parse_compression_level(use);
                 }},
    convert_spec{"salvage", 0, none, "",
                 "recover what can be read from a truncated or damaged recording", "", output,
                 [](convert_state& s, const option_use&) { s.options.salvage = true; }},
    convert_spec{"no-off-cpu-switches", 0, none, "",
                 "do not add hotspot's form of off-CPU time (sched:sched_switch samples and "
                 "SWITCH records) for the recording's offcpu-time samples",
                 "added", output,
                 [](convert_state& s, const option_use&) { s.options.off_cpu_switches = false; }},
    convert_spec{"quiet", 'q', none, "", "print no warnings or messages", "", output,
                 [](convert_state& s, const option_use&) { s.options.quiet = true; }},
    convert_spec{"verbose", 'v', none, "", "print more details; repeat for more (-vv)", "", output,
                 [](convert_state& s, const option_use&) { ++s.options.verbose; }},
    convert_spec{"help", 'h', none, "", "show this help and exit", "", help,
                 [](convert_state& s, const option_use&) { s.help = true; }},
};

}  // namespace

std::variant<convert::convert_options, help_request> parse_convert_command_line(
    std::span<const char* const> args) {
  convert_state state;
  std::size_t rest = parse_options(args, convert_table, state);
  if (state.help) return help_request{convert_help_text()};
  if (rest < args.size())
    throw base::usage_error("unexpected argument " + base::quoted(args[rest]) +
                            " (name files with -i and -o)");
  return state.options;
}

std::string convert_help_text() {
  std::string out =
      "Usage: arec convert [OPTIONS]\n"
      "\n"
      "Converts an arec recording into a perf.data file for perf 6.1 and hotspot.\n";
  append_option_help(out, convert_table);
  out +=
      "\nExamples:\n"
      "  arec convert && hotspot perf.converted.data\n"
      "  arec convert --salvage -i crashed.data -o perf.data && perf report -i perf.data\n"
      "\n"
      "On a terminal a progress bar shows the bytes converted, the rate and the time left\n"
      "(not with -q).\n";
  return out;
}

std::vector<std::string> convert_option_names() {
  return option_names(convert_table);
}

}  // namespace arec::cli
