// session: one recording from options to a finished perf.data: open the events, start the
// streaming threads, synthesize what already runs, start the workload, wait for the end,
// drain, and finalize the header and features.
#pragma once

#include <span>
#include <string>

#include "record/record_options.hpp"

namespace arec::record {

// Records as `options` say and returns arec's exit status (the workload's, when there is one).
// `command_line` is arec's arguments (argv[0] excluded), for the CMDLINE feature. Throws on
// setup failures; the caller prints them.
int run_session(const record_options& options, std::span<const std::string> command_line);

}  // namespace arec::record
