// options: arec's command line (record mode and `arec convert`), with perf record's option
// names and meanings. One table per command drives both the parser and the --help text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "convert/convert_options.hpp"
#include "record/record_options.hpp"

namespace arec::record {

struct help_request {  // -h/--help: print `text` to stdout and exit 0
  std::string text;
};
struct version_request {};  // --version

using record_command = std::variant<record_options, help_request, version_request>;

// Parses arec's arguments (argv[0] excluded). Options may be flags ("-a"), combined flags
// ("-ag"), take a value attached or separate ("-C0,1", "-C 0,1", "--cpu=0,1", "--cpu 0,1") or
// an optional value in the '=' form only ("--threads", "--threads=core"). Unique prefixes of
// long names are accepted. "--" or the first non-option argument ends the options; the rest is
// the workload. -h/--help returns at once, ignoring later arguments.
// Throws usage_error with a one-line message naming the option and value, e.g.
// "-m 3: the number of mmap pages must be a power of two"; system errors (reading
// /proc/sys/kernel/perf_event_max_sample_rate for "-F max") propagate as std::system_error.
record_command parse_record_command_line(std::span<const char* const> args);

// Parses the arguments after "convert". Takes no positional arguments.
std::variant<convert_options, help_request> parse_convert_command_line(
    std::span<const char* const> args);

// The --help texts, generated from the option tables: usage, grouped options with defaults,
// examples.
std::string record_help_text();
std::string convert_help_text();

// Every option name the record parser accepts, spelled with dashes ("-a", "--all-cpus").
std::vector<std::string> record_option_names();
// Every option name the convert parser accepts ("-i", "--input").
std::vector<std::string> convert_option_names();

}  // namespace arec::record
