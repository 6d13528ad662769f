// arec: the command-line entry point. `arec [options] [-- command]` records; `arec convert`
// rewrites a recording; `arec archive` packs its objects for another machine; `arec export`
// turns one into a pprof profile; `arec report` into an HTML page. Messages start with "arec: "; errors with "arec: error: ".
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "cli/archive_command.hpp"
#include "cli/convert_command.hpp"
#include "cli/export_command.hpp"
#include "cli/record_command.hpp"
#include "cli/report_command.hpp"
#include "cli/record_command_line.hpp"
#include "host/stop_signals.hpp"
#include "record/session/workload.hpp"

namespace {

constexpr int exit_usage = 2;
constexpr int exit_failure = 1;
constexpr int exit_cannot_run = 127;

int fail(const std::string& message, int status) {
  std::fprintf(stderr, "arec: error: %s\n", message.c_str());
  return status;
}

int record(std::span<const char* const> args, std::span<const std::string> command_line) {
  using namespace arec::cli;
  record_command command = parse_record_command_line(args);
  if (auto* help = std::get_if<help_request>(&command)) {
    std::fputs(help->text.c_str(), stdout);
    return 0;
  }
  if (std::holds_alternative<version_request>(command)) {
    std::printf("arec %s\n", AREC_VERSION);
    return 0;
  }
  return run_record_command(std::get<record_request>(std::move(command)), command_line);
}

}  // namespace

int main(int argc, char** argv) {
  // perf writes its arguments without argv[0]: CMDLINE starts with the executable's own path.
  std::vector<std::string> command_line(argv + 1, argv + argc);
  std::span<const char* const> args(argv + 1, static_cast<std::size_t>(argc - 1));
  try {
    if (!args.empty() && std::strcmp(args[0], "convert") == 0)
      return arec::cli::run_convert_command(args.subspan(1));
    if (!args.empty() && std::strcmp(args[0], "archive") == 0)
      return arec::cli::run_archive_command(args.subspan(1));
    if (!args.empty() && std::strcmp(args[0], "export") == 0)
      return arec::cli::run_export_command(args.subspan(1));
    if (!args.empty() && std::strcmp(args[0], "report") == 0)
      return arec::cli::run_report_command(args.subspan(1));
    // Before anything is created: from here on a stop signal can only end the recording
    // cleanly (a complete file, no stray workload), whenever it comes.
    arec::host::stop_signals::install();
    return record(args, command_line);
  } catch (const arec::base::usage_error& error) {
    return fail(error.what(), exit_usage);
  } catch (const arec::record::workload_error& error) {
    return fail(error.what(), exit_cannot_run);
  } catch (const std::exception& error) {
    return fail(error.what(), exit_failure);
  }
}
