#include "report/recording_facts.hpp"

#include <optional>

#include "base/unaligned.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::report {
namespace {

// One perf string at `offset`, moving `offset` past it; nullopt when it does not fit.
std::optional<std::string> next_string(std::span<const std::byte> payload, std::size_t& offset) {
  if (offset > payload.size() || payload.size() - offset < 4) return std::nullopt;
  auto length = base::load<std::uint32_t>(payload, offset);
  offset += 4;
  if (length > payload.size() - offset) return std::nullopt;
  std::string text(reinterpret_cast<const char*>(payload.data() + offset), length);
  offset += length;
  text.resize(text.find('\0') == std::string::npos ? text.size() : text.find('\0'));
  return text;
}

std::string feature_string(const perf_data::feature_set& features, perf_data::feature bit) {
  const std::vector<std::byte>* payload = features.find(bit);
  return payload ? perf_string(*payload) : std::string();
}

}  // namespace

std::string perf_string(std::span<const std::byte> payload) {
  std::size_t offset = 0;
  return next_string(payload, offset).value_or("");
}

std::string perf_command_line(std::span<const std::byte> payload) {
  if (payload.size() < 4) return "";
  auto count = base::load<std::uint32_t>(payload, 0);
  std::size_t offset = 4;
  std::string line;
  for (std::uint32_t i = 0; i < count; ++i) {
    std::optional<std::string> word = next_string(payload, offset);
    if (!word) return "";
    if (i != 0) line += ' ';
    line += *word;
  }
  return line;
}

recording_facts facts_of(const exporting::recorded_profile& recorded,
                         std::vector<std::string> inputs, std::string arec_version) {
  const exporting::profile& result = recorded.result;
  recording_facts facts;
  facts.events = recorded.events;
  facts.period = result.period;
  if (result.period_type.unit > 0)
    facts.period_unit = result.strings[static_cast<std::size_t>(result.period_type.unit)];
  facts.start_ns = result.time_nanos;
  facts.duration_ns = result.duration_nanos;
  facts.samples = recorded.report.samples;
  facts.lost = recorded.lost;
  if (const std::vector<std::byte>* line = recorded.features.find(perf_data::feature_cmdline))
    facts.command_line = perf_command_line(*line);
  facts.host = feature_string(recorded.features, perf_data::feature_hostname);
  facts.kernel = feature_string(recorded.features, perf_data::feature_osrelease);
  facts.recorded_by = feature_string(recorded.features, perf_data::feature_version);
  facts.arec_version = std::move(arec_version);
  facts.inputs = std::move(inputs);
  return facts;
}

}  // namespace arec::report
