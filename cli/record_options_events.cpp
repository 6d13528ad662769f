// The record command line's event selection and sampling rate: -e and what acts on its events
// (--filter, --exclude-perf, --group), -F, -c, --all-user, --all-kernel, -k.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <span>
#include <string_view>
#include <utility>

#include "cli/option_values.hpp"
#include "cli/record_option_handlers.hpp"
#include "record/events/event_list.hpp"
#include "record/events/event_spec.hpp"

namespace arec::cli {
namespace {

using record::privilege_scope;

// --filter and --exclude-perf act, as in perf, on every event of the -e just before them (all
// the tracepoints of a wildcard or a list), which must all be tracepoints: arec has none of the
// hardware tracers whose address filters perf also takes.
void filter_last_events(record_state& state, const option_use& use, std::string_view filter) {
  auto refuse = [&](const std::string& problem) {
    if (!use.value.empty()) reject(use, problem);
    throw base::usage_error(std::string(use.spelled) + ": " + problem);  // a flag has no value
  };
  std::span<record::event_spec> last{state.options.events};
  last = last.subspan(state.last_events_start);
  if (last.empty()) refuse("must follow the -e option of the tracepoints it filters");
  for (const record::event_spec& event : last)
    if (!event.tracepoint)
      refuse("must follow a -e of tracepoints; " + base::quoted(event.name) +
             " is not a tracepoint (arec filters only tracepoints)");
  for (record::event_spec& event : last) record::add_filter(event, filter);
}

// perf's names for the clocks (its util/clockid.c), "CLOCK_" prefix optional, any case.
constexpr std::array<std::pair<std::string_view, int>, 15> clock_names{{
    {"realtime", CLOCK_REALTIME},
    {"monotonic", CLOCK_MONOTONIC},
    {"process_cputime_id", CLOCK_PROCESS_CPUTIME_ID},
    {"thread_cputime_id", CLOCK_THREAD_CPUTIME_ID},
    {"monotonic_raw", CLOCK_MONOTONIC_RAW},
    {"realtime_coarse", CLOCK_REALTIME_COARSE},
    {"monotonic_coarse", CLOCK_MONOTONIC_COARSE},
    {"boottime", CLOCK_BOOTTIME},
    {"realtime_alarm", CLOCK_REALTIME_ALARM},
    {"boottime_alarm", CLOCK_BOOTTIME_ALARM},
    {"tai", CLOCK_TAI},
    {"mono", CLOCK_MONOTONIC},
    {"raw", CLOCK_MONOTONIC_RAW},
    {"real", CLOCK_REALTIME},
    {"boot", CLOCK_BOOTTIME},
}};

bool same_letters(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// --all-user and --all-kernel contradict each other, as in perf.
void set_privileges(record_state& state, privilege_scope scope) {
  if (state.options.attrs.privileges != privilege_scope::as_given &&
      state.options.attrs.privileges != scope)
    throw base::usage_error("--all-user and --all-kernel are exclusive");
  state.options.attrs.privileges = scope;
}

}  // namespace

void apply_events(record_state& state, const option_use& use) {
  state.last_events_start = state.options.events.size();
  try {
    for (record::event_spec& event : record::parse_event_list(use.value))
      state.options.events.push_back(std::move(event));
  } catch (const base::usage_error& error) {
    reject(use, error.what());
  }
}

void apply_filter(record_state& state, const option_use& use) {
  if (use.value.empty()) reject(use, "the filter is empty");
  filter_last_events(state, use, use.value);
}

// As perf, the recorder's own pid; event_set adds the threads that drain the rings.
void apply_exclude_perf(record_state& state, const option_use& use) {
  filter_last_events(state, use, "common_pid != " + std::to_string(::getpid()));
  for (auto& event : std::span(state.options.events).subspan(state.last_events_start))
    event.exclude_recorder = true;
}

void apply_frequency(record_state& state, const option_use& use) {
  std::uint64_t hz = 0;
  if (use.value == "max") {
    hz = record::read_max_sample_rate();
  } else {
    std::optional<std::uint64_t> value = parse_unsigned(use.value);
    if (!value) reject(use, "expected a frequency in Hz or 'max'");
    if (*value == 0) reject(use, "the frequency must be at least 1 Hz");
    hz = *value;
  }
  state.options.frequency = hz;
  state.frequency_spelled = std::string(use.spelled);
}

void apply_period(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> value = parse_unsigned(use.value);
  if (!value) reject(use, "expected a period: a number of events between samples");
  if (*value == 0) reject(use, "the period must be at least 1");
  state.options.period = *value;
  state.period_spelled = std::string(use.spelled);
}

void apply_all_user(record_state& state, const option_use&) {
  set_privileges(state, privilege_scope::user_only);
}

void apply_all_kernel(record_state& state, const option_use&) {
  set_privileges(state, privilege_scope::kernel_only);
}

void apply_clockid(record_state& state, const option_use& use) {
  if (state.options.attrs.clockid) reject(use, "the clock is given twice");
  std::string_view name = use.value;
  int number = 0;
  auto [stop, ec] = std::from_chars(name.data(), name.data() + name.size(), number);
  if (!name.empty() && ec == std::errc{} && stop == name.data() + name.size()) {
    state.options.attrs.clockid = number;
    return;
  }
  if (name.size() > 6 && same_letters(name.substr(0, 6), "CLOCK_")) name.remove_prefix(6);
  for (const auto& [known, id] : clock_names)
    if (same_letters(name, known)) {
      state.options.attrs.clockid = id;
      return;
    }
  reject(use,
         "unknown clock (expected monotonic, monotonic_raw, realtime, boottime, tai, "
         "another clock_gettime() name or a number)");
}

void settle_events(record_state& state) {
  record::record_options& options = state.options;
  if (options.frequency && options.period)
    throw base::usage_error(
        state.frequency_spelled + " and " + state.period_spelled +
        " are exclusive: sample at a frequency or every PERIOD events, not both");
  if (options.events.empty()) options.events.push_back(record::parse_event_spec("cycles"));
  if (state.group) record::group_all_events(options.events);
}

}  // namespace arec::cli
