// The record command line's fleet push: --push and its companions, whose values fleet/ judges,
// and how --push shapes the recording.
#include <string>

#include "cli/record_command_line.hpp"
#include "cli/record_option_handlers.hpp"
#include "fleet/otlp_environment.hpp"

namespace arec::cli {

// --push and its companions: their values are fleet's to judge.
void apply_push(record_state& state, const option_use& use) {
  if (!state.push) state.push.emplace();
  std::string option = "--" + std::string(use.spelled.substr(use.spelled.find_first_not_of('-')));
  fleet::apply_push_option(*state.push, option, use.value);
}

// --push cuts the recording into windows as --switch-output=TIME does, at a fleet agent's rate.
void settle_push(record_state& state) {
  record::record_options& options = state.options;
  fleet::push_options& push = *state.push;
  fleet::settle_push_destination(push, fleet::process_environment);
  if (options.output_path == "-")
    throw base::usage_error("--push needs files to export: it cannot write to a pipe (-o -)");
  if (options.switch_output)
    throw base::usage_error("--push cuts its own windows: it cannot be used with --switch-output");
  if (options.attrs.overwrite)
    throw base::usage_error("--push sends every window: it cannot be used with --overwrite");
  options.switch_output = record::record_options::output_switch{.time = push.interval};
  options.timestamp_filename = true;
  if (!options.frequency && !options.period) options.frequency = default_push_frequency_hz;
  if (push.spool_dir.empty()) push.spool_dir = std::string(default_push_spool);
}

}  // namespace arec::cli
