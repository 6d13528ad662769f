// archive_command_line: the options of `arec archive`, as one option table (cli/option_table)
// that drives the parser and the --help text.
#pragma once

#include <span>
#include <string>
#include <variant>
#include <vector>

#include "cli/command_requests.hpp"
#include "symbols/archive_options.hpp"

namespace arec::cli {

// Parses the arguments after "archive": options and at most one positional FILE (perf
// archive's form), which -i may name instead. Throws usage_error naming the option or argument.
std::variant<symbols::archive_options, help_request> parse_archive_command_line(
    std::span<const char* const> args);

// The --help text, generated from the option table.
std::string archive_help_text();

// Every option name the archive parser accepts ("-i", "--input").
std::vector<std::string> archive_option_names();

}  // namespace arec::cli
