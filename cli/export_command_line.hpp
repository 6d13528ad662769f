// export_command_line: the options of `arec export`, as one option table (cli/option_table)
// that drives the parser and the --help text.
#pragma once

#include <span>
#include <string>
#include <variant>
#include <vector>

#include "cli/command_requests.hpp"
#include "export/export_options.hpp"

namespace arec::cli {

// Parses the arguments after "export". Takes no positional arguments. Throws usage_error
// naming the option or argument.
std::variant<exporting::export_options, help_request> parse_export_command_line(
    std::span<const char* const> args);

// The --help text, generated from the option table.
std::string export_help_text();

// Every option name the export parser accepts ("-i", "--input").
std::vector<std::string> export_option_names();

}  // namespace arec::cli
