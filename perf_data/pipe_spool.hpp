// pipe_spool: a pipe-mode stream arriving on a pipe (standard input, a FIFO) copied to an
// unlinked file, so that the readers, which read files with positioned reads, read it as a
// saved stream (perf reads `-i -` as a pipe stream).
#pragma once

#include <string>

#include "io/unique_fd.hpp"

namespace arec::perf_data {

// Reads `from` (named `name` in errors) to its end into a new unlinked file (O_TMPFILE, mode
// 0600) in `dir`, and returns it. Throws std::system_error naming the call and the object.
io::unique_fd spool_pipe_stream(int from, const std::string& name, const std::string& dir);

}  // namespace arec::perf_data
