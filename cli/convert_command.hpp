// convert_command: `arec convert ...` as the command line runs it — parse, convert, and tell
// the user what happened (salvage losses, records out of order, throughput).
#pragma once

#include <span>

namespace arec::cli {

// Runs `arec convert` with the arguments after "convert" and returns the exit status: 0 when
// the output was written (also when --salvage had to drop damaged data). Throws usage_error for bad
// options (the caller exits 2), perf_data::format_error and std::system_error for input or output
// failures (the caller prints "arec: error: " + what() and exits 1; no output file is left behind).
int run_convert_command(std::span<const char* const> args);

}  // namespace arec::cli
