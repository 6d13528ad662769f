// record_command_line: `arec [OPTIONS] [--] [COMMAND]`, with perf record's option names and
// meanings, as one option table (cli/option_table) that drives the parser and the --help text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cli/command_requests.hpp"
#include "fleet/push_options.hpp"
#include "record/record_options.hpp"

namespace arec::cli {

// What the record command line asks for: a recording, and with --push, where it goes live.
struct record_request {
  record::record_options options;
  std::optional<fleet::push_options> push;
};

// --push's defaults: a fleet agent's sampling rate, and where unsent windows wait.
inline constexpr std::uint64_t default_push_frequency_hz = 99;
inline constexpr std::string_view default_push_spool = "/var/tmp/arec-push";

using record_command = std::variant<record_request, help_request, version_request>;

// Parses arec's arguments (argv[0] excluded). Options may be flags ("-a"), combined flags
// ("-ag"), take a value attached or separate ("-C0,1", "-C 0,1", "--cpu=0,1", "--cpu 0,1") or
// an optional value in the '=' form only ("--threads", "--threads=core"). Unique prefixes of
// long names are accepted. "--" or the first non-option argument ends the options; the rest is
// the workload. -h/--help returns at once, ignoring later arguments.
// Throws usage_error with a one-line message naming the option and value, e.g.
// "-m 3: the number of mmap pages must be a power of two"; system errors (reading
// /proc/sys/kernel/perf_event_max_sample_rate for "-F max") propagate as std::system_error.
record_command parse_record_command_line(std::span<const char* const> args);

// The --help text, generated from the option table: usage, grouped options with defaults,
// examples.
std::string record_help_text();

// Every option name the record parser accepts, spelled with dashes ("-a", "--all-cpus").
std::vector<std::string> record_option_names();

}  // namespace arec::cli
