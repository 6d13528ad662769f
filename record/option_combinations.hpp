// option_combinations: which record options one recording can take together, decided from the
// options alone (and whether the output is a pipe) before anything is opened or created, so
// that a refused combination leaves nothing behind. Each refusal is an base::usage_error in
// perf's words where perf refuses the same.
#pragma once

#include "record/record_options.hpp"

namespace arec::record {

// -p, -t or -u name what is recorded.
bool names_targets(const record_options& options);
// The events follow tasks (a workload, -p, -t, -u), not cpus (-a, -C).
bool records_per_task(const record_options& options);

// Throws base::usage_error for a combination no recording can honour: --threads or
// --switch-output/--timestamp-filename in pipe mode, --per-thread with --threads, and
// --overwrite in pipe mode or with --switch-output=SIZE.
void check_option_combinations(const record_options& options, bool to_pipe);

}  // namespace arec::record
