#include "cli/report_command_line.hpp"

#include <array>

#include "cli/option_table.hpp"

namespace arec::cli {
namespace {

struct report_state {
  report::report_options options;
  bool help = false;
  bool finished() const { return help; }
};

using report_spec = option_spec<report_state>;
using enum argument_kind;
using enum option_group;

constexpr std::array report_table{
    report_spec{"input", 'i', required, "FILE",
                "read the recording FILE (a file or a --threads directory); repeat for the files "
                "of a rotated recording",
                "perf.data", files,
                [](report_state& s, const option_use& use) {
                  if (use.value.empty()) reject(use, "the input file name is empty");
                  s.options.inputs.emplace_back(use.value);
                }},
    report_spec{"output", 'o', required, "FILE", "write the page to FILE", "INPUT.html", files,
                [](report_state& s, const option_use& use) {
                  if (use.value.empty()) reject(use, "the output file name is empty");
                  if (use.value == "-") reject(use, "the page is a file: name one");
                  s.options.output = std::string(use.value);
                }},
    report_spec{"diff", 0, required, "BASE",
                "compare with the recording BASE: the views coloured by the change of each "
                "frame's share (grown, shrunk, new), and the paths that are gone",
                "", files,
                [](report_state& s, const option_use& use) {
                  if (use.value.empty()) reject(use, "the base file name is empty");
                  s.options.diff_base = std::string(use.value);
                }},
    report_spec{"salvage", 0, none, "",
                "report what can be read from a truncated or damaged recording", "", output,
                [](report_state& s, const option_use&) { s.options.salvage = true; }},
    report_spec{"quiet", 'q', none, "", "print no warnings or messages", "", output,
                [](report_state& s, const option_use&) { s.options.quiet = true; }},
    report_spec{"help", 'h', none, "", "show this help and exit", "", help,
                [](report_state& s, const option_use&) { s.help = true; }},
};

}  // namespace

std::variant<report::report_options, help_request> parse_report_command_line(
    std::span<const char* const> args) {
  report_state state;
  std::size_t rest = parse_options(args, report_table, state);
  if (state.help) return help_request{report_help_text()};
  if (rest < args.size())
    throw base::usage_error("unexpected argument " + base::quoted(args[rest]) +
                            " (name files with -i and -o)");
  return state.options;
}

std::string report_help_text() {
  std::string out =
      "Usage: arec report [OPTIONS]\n"
      "\n"
      "Writes a recording's profile as one HTML page that any browser opens offline (nothing\n"
      "is fetched): flame graph and icicle, top-down tree, bottom-up table, callers and\n"
      "callees, search, a thread selector, and a text summary that reads without scripts.\n"
      "It reads what `arec export` reads, symbolized the same way.\n";
  append_option_help(out, report_table);
  out +=
      "\nExamples:\n"
      "  arec report                          # perf.data -> perf.data.html\n"
      "  arec report -i app.data -o app.html && xdg-open app.html\n"
      "  arec report -i after.data --diff before.data -o change.html\n";
  return out;
}

std::vector<std::string> report_option_names() {
  return option_names(report_table);
}

}  // namespace arec::cli
