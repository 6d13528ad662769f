#include "cli/convert_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <variant>

#include "cli/convert_command_line.hpp"
#include "cli/progress_bar.hpp"
#include "convert/converter.hpp"

namespace arec::cli {
namespace {

double megabytes(std::uint64_t bytes) {
  return static_cast<double>(bytes) / 1e6;
}

}  // namespace

int run_convert_command(std::span<const char* const> args) {
  auto parsed = parse_convert_command_line(args);
  if (auto* help = std::get_if<help_request>(&parsed)) {
    std::fputs(help->text.c_str(), stdout);
    return 0;
  }
  const convert::convert_options& options = std::get<convert::convert_options>(parsed);
  convert::convert_settings settings;
  progress_bar bar(STDERR_FILENO, !options.quiet);
  if (bar.active())
    settings.progress = [&bar](const convert::convert_progress& progress) {
      bar.update(progress.bytes_read, progress.bytes_total);
    };
  auto start = std::chrono::steady_clock::now();
  convert::convert_report report = convert::convert(options, settings);
  bar.clear();  // an error thrown above is printed after the destructor erased the bar
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.quiet) return 0;

  for (const std::string& note : report.notes)
    std::fprintf(stderr, "arec: salvage: %s\n", note.c_str());
  if (options.salvage)
    std::fprintf(stderr, "arec: salvage: kept %llu records, dropped %llu bytes of damaged data\n",
                 static_cast<unsigned long long>(report.records),
                 static_cast<unsigned long long>(report.dropped_bytes));
  if (report.late_records)
    std::fprintf(stderr,
                 "arec: warning: %llu records arrived later than the reorder window allows and "
                 "are out of time order in the output\n",
                 static_cast<unsigned long long>(report.late_records));
  if (!report.unknown_records.empty()) {
    std::uint64_t dropped = 0;
    for (const auto& [type, count] : report.unknown_records) dropped += count;
    std::fprintf(stderr,
                 "arec: warning: dropped %llu records of types perf 6.1 does not know: %s\n",
                 static_cast<unsigned long long>(dropped),
                 convert::describe_unknown_records(report.unknown_records).c_str());
  }
  for (const std::string& feature : report.dropped_features)
    std::fprintf(stderr, "arec: warning: dropped a feature perf 6.1 cannot read: %s\n",
                 feature.c_str());
  for (const std::string& warning : report.warnings)
    std::fprintf(stderr, "arec: warning: %s\n", warning.c_str());
  for (const convert::rejected_records& rejected : report.rejected)
    std::fprintf(stderr,
                 "arec: warning: dropped %llu records perf 6.1 cannot read: %s (the first at "
                 "%s)\n",
                 static_cast<unsigned long long>(rejected.count), rejected.problem.c_str(),
                 rejected.first.c_str());
  std::fprintf(stderr,
               "arec: converted %llu records (%llu samples) from %zu data file%s, %.1f MB in "
               "%.2f s (%.0f MB/s), to %s\n",
               static_cast<unsigned long long>(report.records),
               static_cast<unsigned long long>(report.samples), report.files,
               report.files == 1 ? "" : "s", megabytes(report.input_bytes), seconds,
               seconds > 0 ? megabytes(report.input_bytes) / seconds : 0.0, options.output.c_str());
  if (report.chains_completed || report.chains_not_completed)
    std::fprintf(stderr,
                 "arec: %llu frame-pointer stacks completed from CFI (%llu over a frameless "
                 "function that saved rbp); %llu kept as recorded (no CFI, stack copy too short "
                 "or JIT code: a caller may be missing)\n",
                 static_cast<unsigned long long>(report.chains_completed),
                 static_cast<unsigned long long>(report.chains_unverified),
                 static_cast<unsigned long long>(report.chains_not_completed));
  if (report.deferred_stitched || report.deferred_unmatched)
    std::fprintf(stderr,
                 "arec: %llu samples given their deferred user stacks (CALLCHAIN_DEFERRED); %llu "
                 "whose user stack never came keep their kernel frames\n",
                 static_cast<unsigned long long>(report.deferred_stitched),
                 static_cast<unsigned long long>(report.deferred_unmatched));
  if (report.off_cpu_blocks)
    std::fprintf(stderr,
                 "arec: off-CPU time: %llu offcpu-time samples also written as sched:sched_switch "
                 "samples and SWITCH records, for hotspot's off-CPU view\n",
                 static_cast<unsigned long long>(report.off_cpu_blocks));
  if (options.verbose)
    std::fprintf(stderr,
                 "arec: %llu COMPRESSED records expanded; output data %llu bytes (%llu before "
                 "compression, zstd level %d); reorder windows peaked at %zu bytes\n",
                 static_cast<unsigned long long>(report.compressed_in),
                 static_cast<unsigned long long>(report.output_bytes),
                 static_cast<unsigned long long>(report.record_bytes), report.compression_level,
                 report.peak_window_bytes);
  if (options.verbose && report.jit_mappings)
    std::fprintf(stderr,
                 "arec: %llu JIT code mappings name an ELF of their process's perf map or "
                 "jitdump; %llu mapped again for a later code generation\n",
                 static_cast<unsigned long long>(report.jit_mappings),
                 static_cast<unsigned long long>(report.jit_remapped));
  return 0;
}

}  // namespace arec::cli
