// report_command: `arec report ...` as the command line runs it — parse, write the page, and
// tell the user where it is.
#pragma once

#include <span>

namespace arec::cli {

// Runs `arec report` with the arguments after "report" and returns the exit status (0 when the
// page was written). Throws usage_error for bad options (the caller exits 2),
// perf_data::format_error and std::system_error for input or output failures (exit 1).
int run_report_command(std::span<const char* const> args);

}  // namespace arec::cli
