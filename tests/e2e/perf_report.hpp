// perf_report: `perf report --stdio` run on a recorded file, and its rows parsed. The reader
// is unmodified perf, so a file it reads without complaint is a file perf users can use.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/child_process.hpp"

namespace arec::e2e {

// One line of `--sort dso,sym` output: "    99.45%  hot_loop  [.] hot_function".
struct report_row {
  double percent = 0;
  std::string dso;     // as perf shows it: a file name or "[kernel.kallsyms]"
  char level = '?';    // '.' user space, 'k' kernel
  std::string symbol;  // "[unknown]" or a hex address when perf could not resolve it
};

// The rows of `perf report --stdio` text, in the order printed; comment lines are skipped.
std::vector<report_row> parse_perf_report(std::string_view text);

struct perf_report {
  test::command_result run;
  std::vector<report_row> rows;
};

// Runs `perf report --stdio -i FILE --sort dso,sym --no-children -g none` (self overhead,
// no call-graph text) and parses its stdout.
perf_report run_perf_report(const std::string& data_file);

// The SAMPLE records in `file`, as `perf report --stats` counts them: what arec counts as
// written. Unlike perf script's lines, no task's name (which may hold a newline) can change the
// count, and it costs perf no symbol lookup.
std::size_t sample_records(const std::string& file);
// The LOST records in `file` (the kernel's count of what a full ring dropped), counted the same
// way: a loaded host's switch flood can fill a system-wide recording's rings.
std::size_t lost_records(const std::string& file);

// Whether perf printed a warning (any case of "warning") on stderr.
bool has_warning(const test::command_result& run);
// The same, not counting perf's report of samples the kernel lost ("Processed N events and
// lost M chunks! Check IO/CPU overload!"): a ring overflows on a loaded machine, and the loss
// is counted in the file, which is right, not a fault of it.
bool has_warning_besides_lost_chunks(const test::command_result& run);

}  // namespace arec::e2e
