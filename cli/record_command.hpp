// record_command: runs what the record command line asked for: a recording, and with --push
// the live push that exports and sends each of its windows.
#pragma once

#include <span>
#include <string>

#include "cli/record_command_line.hpp"

namespace arec::cli {

// Records (record::run_session) and returns its exit status; with --push, the windows are
// pushed while recording and the push is flushed before returning.
int run_record_command(record_request request, std::span<const std::string> command_line);

}  // namespace arec::cli
