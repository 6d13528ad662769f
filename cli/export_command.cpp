#include "cli/export_command.hpp"

#include <cstdio>
#include <string>
#include <variant>

#include "cli/export_command_line.hpp"
#include "export/exporter.hpp"

namespace arec::cli {

int run_export_command(std::span<const char* const> args) {
  auto parsed = parse_export_command_line(args);
  if (auto* help = std::get_if<help_request>(&parsed)) {
    std::fputs(help->text.c_str(), stdout);
    return 0;
  }
  const exporting::export_options& options = std::get<exporting::export_options>(parsed);
  exporting::export_report report = exporting::export_recording(options);
  if (options.quiet) return 0;
  for (const std::string& note : report.notes)
    std::fprintf(stderr, "arec: salvage: %s\n", note.c_str());
  for (const std::string& warning : report.warnings)
    std::fprintf(stderr, "arec: warning: %s\n", warning.c_str());
  if (report.bad_samples)
    std::fprintf(stderr,
                 "arec: warning: left out %llu samples too short for their event's layout\n",
                 static_cast<unsigned long long>(report.bad_samples));
  if (report.chains_not_completed || report.chains_unverified)
    std::fprintf(stderr,
                 "arec: %llu samples kept their frame-pointer stack as recorded (no CFI, stack "
                 "copy too short or JIT code: a caller may be missing); %llu were completed over "
                 "a frameless function that saved rbp\n",
                 static_cast<unsigned long long>(report.chains_not_completed),
                 static_cast<unsigned long long>(report.chains_unverified));
  if (report.unnamed.samples != 0)
    std::fprintf(stderr,
                 "arec: %llu of %llu samples have frames no symbol, FDE or perf map names (%zu "
                 "addresses in %zu files, %zu in no mapping), shown unnamed; their mappings keep "
                 "their build-ids\n",
                 static_cast<unsigned long long>(report.unnamed.samples),
                 static_cast<unsigned long long>(report.unnamed.all_samples),
                 report.unnamed.addresses - report.unnamed.unmapped, report.unnamed.files,
                 report.unnamed.unmapped);
  if (report.samples == 0) std::fprintf(stderr, "arec: warning: the recording has no samples\n");
  std::fprintf(stderr,
               "arec: exported %llu samples (%zu stacks, %zu functions, %zu mappings) from %zu "
               "recording%s to %s (%llu bytes)\n",
               static_cast<unsigned long long>(report.samples), report.stacks, report.functions,
               report.mappings, report.inputs, report.inputs == 1 ? "" : "s",
               report.output == "-" ? "standard output" : report.output.c_str(),
               static_cast<unsigned long long>(report.output_bytes));
  return 0;
}

}  // namespace arec::cli
