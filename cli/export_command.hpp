// export_command: `arec export ...` as the command line runs it — parse, export, and tell the
// user what was written.
#pragma once

#include <span>

namespace arec::cli {

// Runs `arec export` with the arguments after "export" and returns the exit status (0 when the
// profile was written). Throws usage_error for bad options (the caller exits 2),
// perf_data::format_error and std::system_error for input or output failures (exit 1).
int run_export_command(std::span<const char* const> args);

}  // namespace arec::cli
