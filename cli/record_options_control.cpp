// The record command line's run control: when sampling starts (-D), commands while recording
// (--control), and when it stops (--duration).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "cli/option_values.hpp"
#include "cli/record_option_handlers.hpp"
#include "record/session/control_channel.hpp"

namespace arec::cli {

// -D MS, -D -1, or -D START-END[,START-END...] (perf 6.1's ranges, in ms, in order).
void apply_delay(record_state& state, const option_use& use) {
  constexpr std::string_view expected =
      "expected a delay in ms, -1 (start disabled), or ranges like 10-20,30-40";
  state.options.delayed = false;
  state.options.enable_windows.clear();
  if (use.value == "-1") {
    state.options.delayed = true;
    return;
  }
  if (use.value.find('-') == std::string_view::npos) {
    std::optional<std::uint64_t> ms = parse_unsigned(use.value);
    if (!ms) reject(use, expected);
    if (*ms == 0) return;  // no delay, as perf
    state.options.delayed = true;
    state.options.enable_windows.push_back({*ms, std::nullopt});
    return;
  }
  std::string_view rest = use.value;
  std::uint64_t previous_end = 0;
  while (!rest.empty()) {
    std::string_view range = rest.substr(0, rest.find(','));
    rest.remove_prefix(std::min(rest.size(), range.size() + 1));
    std::size_t dash = range.find('-');
    std::optional<std::uint64_t> start = parse_unsigned(range.substr(0, dash));
    std::optional<std::uint64_t> end =
        dash == std::string_view::npos ? std::nullopt : parse_unsigned(range.substr(dash + 1));
    if (!start || !end) reject(use, expected);
    if (*end <= *start) reject(use, "a range must end after it starts");
    if (*start < previous_end) reject(use, "ranges must be in order and must not overlap");
    previous_end = *end;
    state.options.enable_windows.push_back({*start, *end});
  }
  state.options.delayed = true;
}

void apply_control(record_state& state, const option_use& use) {
  state.options.control = record::parse_control_spec(use.value);
  if (!state.options.control) reject(use, "expected fd:CTL[,ACK] or fifo:CTL[,ACK]");
}

void apply_duration(record_state& state, const option_use& use) {
  double seconds = 0;
  const char* end = use.value.data() + use.value.size();
  auto [stop, ec] = std::from_chars(use.value.data(), end, seconds);
  if (use.value.empty() || ec != std::errc{} || stop != end || !std::isfinite(seconds))
    reject(use, "expected a number of seconds");
  if (seconds <= 0) reject(use, "the duration must be more than 0 seconds");
  state.options.duration_s = seconds;
}

}  // namespace arec::cli
