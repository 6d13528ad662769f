// report_command_line: the options of `arec report`, as one option table (cli/option_table)
// that drives the parser and the --help text.
#pragma once

#include <span>
#include <string>
#include <variant>
#include <vector>

#include "cli/command_requests.hpp"
#include "report/report_options.hpp"

namespace arec::cli {

// Parses the arguments after "report". Takes no positional arguments. Throws usage_error
// naming the option or argument.
std::variant<report::report_options, help_request> parse_report_command_line(
    std::span<const char* const> args);

// The --help text, generated from the option table.
std::string report_help_text();

// Every option name the report parser accepts ("-i", "--input").
std::vector<std::string> report_option_names();

}  // namespace arec::cli
