// The record command line's output and its rotation: -o, -z, --switch-output,
// --switch-max-files, --max-size.
#include <array>
#include <chrono>
#include <limits>
#include <span>
#include <string_view>

#include "cli/option_values.hpp"
#include "cli/record_option_handlers.hpp"

namespace arec::cli {
namespace {

// perf's tagged values: digits and one unit letter from `units`, nothing else ("100K", "30s").
struct value_unit {
  char tag;
  std::uint64_t factor;
};
std::optional<std::uint64_t> parse_tagged(std::string_view text,
                                          std::span<const value_unit> units) {
  if (text.size() < 2) return std::nullopt;
  for (const value_unit& unit : units) {
    if (text.back() != unit.tag) continue;
    std::optional<std::uint64_t> count = parse_unsigned(text.substr(0, text.size() - 1));
    if (!count || *count > std::numeric_limits<std::uint64_t>::max() / unit.factor)
      return std::nullopt;
    return *count * unit.factor;
  }
  return std::nullopt;
}
constexpr std::array<value_unit, 4> size_units{
    {{'B', 1}, {'K', 1u << 10}, {'M', 1u << 20}, {'G', 1u << 30}}};
constexpr std::array<value_unit, 4> time_units{{{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}}};

}  // namespace

void apply_output(record_state& state, const option_use& use) {
  if (use.value.empty()) reject(use, "the output file name is empty");
  state.options.output_path = std::string(use.value);
  state.options.output_given = true;
}

void apply_compression(record_state& state, const option_use& use) {
  state.options.compression_level = use.value.empty() ? 1 : parse_compression_level(use);
}

// --switch-output: bare or "signal" switches on SIGUSR2; a size or a time switches by itself.
void apply_switch_output(record_state& state, const option_use& use) {
  record::record_options::output_switch mode;
  if (use.value.empty() || use.value == "signal") {
    mode.on_signal = true;
  } else if (std::optional<std::uint64_t> bytes = parse_tagged(use.value, size_units)) {
    mode.size = *bytes;
  } else if (std::optional<std::uint64_t> seconds = parse_tagged(use.value, time_units)) {
    mode.time = std::chrono::seconds(*seconds);
  } else {
    reject(use, "expected signal, a size like 100M (B, K, M, G) or a time like 30s (s, m, h, d)");
  }
  if (!mode.on_signal && mode.size == 0 && mode.time.count() == 0)
    reject(use, "the size or time must be more than 0");
  state.options.switch_output = mode;
  state.options.timestamp_filename = true;  // as in perf: every file gets its time
}

void apply_switch_max_files(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> count = parse_unsigned(use.value);
  if (!count) reject(use, "expected a number of files");
  state.options.switch_max_files = static_cast<std::size_t>(*count);
}

void apply_max_size(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> bytes = parse_tagged(use.value, size_units);
  if (!bytes || *bytes == 0) reject(use, "expected a size like 100M (B, K, M, G suffix)");
  state.options.max_size = *bytes;
}

void apply_debuginfod_deadline(record_state& state, const option_use& use) {
  std::optional<std::uint64_t> seconds = parse_unsigned(use.value);
  // A day is far more than any end should wait: past it the number is a mistake.
  if (!seconds || *seconds > 86'400) reject(use, "expected whole seconds from 0 to 86400");
  state.options.debuginfod_deadline = std::chrono::seconds(*seconds);
}

}  // namespace arec::cli
