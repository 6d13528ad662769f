#include "cli/archive_command_line.hpp"

#include <array>

#include "cli/option_table.hpp"

namespace arec::cli {
namespace {

struct archive_state {
  symbols::archive_options options;
  bool input_given = false;
  bool help = false;
  bool finished() const { return help; }
};

using archive_spec = option_spec<archive_state>;
using enum argument_kind;
using enum option_group;

constexpr std::array archive_table{
    archive_spec{"input", 'i', required, "FILE", "archive the objects of the recording FILE",
                 "perf.data", files,
                 [](archive_state& s, const option_use& use) {
                   if (use.value.empty()) reject(use, "the input file name is empty");
                   s.options.input = std::string(use.value);
                   s.input_given = true;
                 }},
    archive_spec{"output", 'o', required, "FILE", "write the archive FILE", "INPUT.tar.bz2", files,
                 [](archive_state& s, const option_use& use) {
                   if (use.value.empty()) reject(use, "the output file name is empty");
                   s.options.output = std::string(use.value);
                 }},
    archive_spec{"quiet", 'q', none, "", "print no warnings or messages", "", output,
                 [](archive_state& s, const option_use&) { s.options.quiet = true; }},
    archive_spec{"help", 'h', none, "", "show this help and exit", "", help,
                 [](archive_state& s, const option_use&) { s.help = true; }},
};

// "perf.data.tar.bz2" for "perf.data" and for a data directory given as "perf.data/".
std::string default_output(std::string input) {
  while (input.size() > 1 && input.back() == '/') input.pop_back();
  return input + ".tar.bz2";
}

}  // namespace

std::variant<symbols::archive_options, help_request> parse_archive_command_line(
    std::span<const char* const> args) {
  archive_state state;
  std::size_t rest = parse_options(args, archive_table, state);
  if (state.help) return help_request{archive_help_text()};
  if (rest < args.size() && !state.input_given) state.options.input = args[rest++];
  if (rest < args.size())
    throw base::usage_error("unexpected argument " + base::quoted(args[rest]) +
                            " (arec archive takes one recording)");
  if (state.options.output.empty()) state.options.output = default_output(state.options.input);
  return state.options;
}

std::string archive_help_text() {
  std::string out =
      "Usage: arec archive [OPTIONS] [FILE]\n"
      "\n"
      "Packs the build-id cache's objects of a recording (the binaries, libraries, vdso and\n"
      "kallsyms it sampled) into one tar.bz2, laid out as perf archive lays it out, so that\n"
      "perf report resolves its symbols on a machine that has none of them.\n";
  append_option_help(out, archive_table);
  out +=
      "\nExamples:\n"
      "  arec archive                     # perf.data -> perf.data.tar.bz2\n"
      "  arec archive -i run.data -o /tmp/run.tar.bz2\n"
      "\n"
      "On the other machine: tar xf perf.data.tar.bz2 -C ~/.debug, then perf report.\n";
  return out;
}

std::vector<std::string> archive_option_names() {
  return option_names(archive_table);
}

}  // namespace arec::cli
