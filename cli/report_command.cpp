#include "cli/report_command.hpp"

#include <cstdio>
#include <string>
#include <variant>

#include "cli/report_command_line.hpp"
#include "report/reporter.hpp"

namespace arec::cli {

int run_report_command(std::span<const char* const> args) {
  auto parsed = parse_report_command_line(args);
  if (auto* help = std::get_if<help_request>(&parsed)) {
    std::fputs(help->text.c_str(), stdout);
    return 0;
  }
  const report::report_options& options = std::get<report::report_options>(parsed);
  report::report_result result = report::write_report(options);
  if (options.quiet) return 0;
  for (const std::string& warning : result.warnings)
    std::fprintf(stderr, "arec: warning: %s\n", warning.c_str());
  if (result.samples == 0) std::fprintf(stderr, "arec: warning: the recording has no samples\n");
  if (result.lost)
    std::fprintf(stderr, "arec: warning: the kernel lost %llu samples (the page says so)\n",
                 static_cast<unsigned long long>(result.lost));
  std::fprintf(stderr, "arec: report of %llu samples (%zu call-tree nodes) written to %s (%llu bytes)\n",
               static_cast<unsigned long long>(result.samples), result.nodes,
               result.output.c_str(), static_cast<unsigned long long>(result.bytes));
  return 0;
}

}  // namespace arec::cli
