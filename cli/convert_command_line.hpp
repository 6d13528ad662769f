// convert_command_line: the options of `arec convert`, as one option table (cli/option_table)
// that drives the parser and the --help text.
#pragma once

#include <span>
#include <string>
#include <variant>
#include <vector>

#include "cli/command_requests.hpp"
#include "convert/convert_options.hpp"

namespace arec::cli {

// Parses the arguments after "convert". Takes no positional arguments. Throws usage_error
// naming the option or argument.
std::variant<convert::convert_options, help_request> parse_convert_command_line(
    std::span<const char* const> args);

// The --help text, generated from the option table.
std::string convert_help_text();

// Every option name the convert parser accepts ("-i", "--input").
std::vector<std::string> convert_option_names();

}  // namespace arec::cli
