// archive_command: `arec archive [-i FILE] [-o FILE]` as the command line runs it — read the
// recording's build-ids, pack their objects from the build-id cache, tell the user how to
// use the archive elsewhere.
#pragma once

#include <span>

namespace arec::cli {

// Runs `arec archive` with the arguments after "archive" and returns the exit status: 0 when
// the archive was written (also when some objects were missing from the cache: each is
// named on stderr). Throws usage_error for bad options (the caller exits 2); format_error,
// std::system_error and std::runtime_error for a recording without build-ids, a cache that
// holds none of them, or a failure to read or write (the caller prints "arec: error: " +
// what() and exits 1; no archive is left behind).
int run_archive_command(std::span<const char* const> args);

}  // namespace arec::cli
