#include "record/events/event_terms.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>

#include "base/trimmed.hpp"
#include "base/usage_error.hpp"
#include "io/small_file.hpp"
#include "record/layout/topology.hpp"
#include "record/record_options.hpp"

namespace arec::record {
namespace {

// perf 6.1's generic terms, in the order its "valid terms:" line lists them.
constexpr std::string_view valid_terms =
    "config,config1,config2,name,period,freq,branch_type,time,call-graph,stack-size,no-inherit,"
    "inherit,max-stack,nr,no-overwrite,overwrite,driver-config,percore,aux-output,aux-sample-"
    "size,metric-id";
// perf terms that need what arec does not do (overwrite rings, AUX areas, branch filters, perf
// stat's metrics): refused by name rather than ignored.
constexpr std::array<std::string_view, 9> unsupported_terms{
    "branch_type", "nr",         "no-overwrite",    "overwrite", "driver-config",
    "percore",     "aux-output", "aux-sample-size", "metric-id"};

[[noreturn]] void syntax_error(std::string_view whole, const std::string& problem) {
  throw base::usage_error("event syntax error: '" + std::string(whole) + "': " + problem);
}

// A term's value as perf's lexer reads numbers: decimal, or hex after 0x.
std::optional<std::uint64_t> parse_number(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, value, base);
  if (text.empty() || ec != std::errc{} || stop != end) return std::nullopt;
  return value;
}

// PMU and term names are identifiers; refusing '/' and '.' keeps sysfs paths inside the PMU.
bool is_name(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

std::string pmu_path(std::string_view pmu, std::string_view entry) {
  return sysfs_root() + "/bus/event_source/devices/" + std::string(pmu) + "/" + std::string(entry);
}

// Puts `value` into the bits a PMU format names ("config:0-7", "config1:0-31,40-47"), low bits
// first, as perf does. False when the format is not one arec understands.
bool place_format_bits(event_spec& event, std::string_view format, std::uint64_t value,
                       std::string_view term, std::string_view whole) {
  auto colon = format.find(':');
  if (colon == std::string_view::npos) return false;
  std::string_view field = format.substr(0, colon);
  std::uint64_t* target = field == "config"    ? &event.config
                          : field == "config1" ? &event.config1
                          : field == "config2" ? &event.config2
                                               : nullptr;
  if (!target) return false;
  std::string_view ranges = format.substr(colon + 1);
  std::uint64_t rest = value;
  unsigned width = 0;
  while (!ranges.empty()) {
    auto comma = ranges.find(',');
    std::string_view range = ranges.substr(0, comma);
    auto dash = range.find('-');
    auto low = parse_number(range.substr(0, dash));
    auto high = dash == std::string_view::npos ? low : parse_number(range.substr(dash + 1));
    if (!low || !high || *high < *low || *high > 63) return false;
    for (std::uint64_t bit = *low; bit <= *high; ++bit, ++width, rest >>= 1)
      if (rest & 1) *target |= std::uint64_t{1} << bit;
    ranges = comma == std::string_view::npos ? std::string_view{} : ranges.substr(comma + 1);
  }
  if (rest != 0)
    syntax_error(whole, "value too big for format (" + std::string(term) + "), maximum is " +
                            std::to_string(width >= 64 ? ~std::uint64_t{0}
                                                       : (std::uint64_t{1} << width) - 1));
  return true;
}

// A term that is the PMU's own: a format field, or the name of one of its events/ (whose text
// is more terms, "event=0x00").
bool apply_pmu_term(event_spec& event, std::string_view pmu, std::string_view key,
                    std::optional<std::uint64_t> value, std::string_view whole) {
  if (pmu.empty() || !is_name(key)) return false;
  if (auto format = io::read_text_if_exists(pmu_path(pmu, "format/" + std::string(key))))
    return value && place_format_bits(event, base::trimmed(*format), *value, key, whole);
  if (auto alias = io::read_text_if_exists(pmu_path(pmu, "events/" + std::string(key)))) {
    apply_event_terms(event, base::trimmed(*alias), pmu, whole);
    return true;
  }
  return false;
}

call_graph_mode parse_call_graph(std::string_view mode, std::string_view whole) {
  if (mode == "fp") return call_graph_mode::fp;
  if (mode == "dwarf") return call_graph_mode::dwarf;
  if (mode == "no") return call_graph_mode::none;
  if (mode == "lbr")  // perf takes it and then fails to open the event, in these words
    syntax_error(whole, "PMU Hardware or event type doesn't support branch stack sampling");
  syntax_error(whole, "unknown call-graph mode '" + std::string(mode) + "' (fp, dwarf or no)");
}

void apply_term(event_spec& event, std::string_view key, std::optional<std::string_view> text,
                std::string_view pmu, std::string_view whole) {
  // A bare term is 1, as in perf ("inherit", "time", "period").
  std::optional<std::uint64_t> value = text ? parse_number(*text) : std::uint64_t{1};
  auto number = [&]() {
    if (!value) syntax_error(whole, "expected a number for term '" + std::string(key) + "'");
    return *value;
  };
  if (key == "name") {
    if (!text || text->empty()) syntax_error(whole, "term 'name' needs a value");
    event.name = std::string(*text);
  } else if (key == "config") {
    event.config = number();
  } else if (key == "config1") {
    event.config1 = number();
  } else if (key == "config2") {
    event.config2 = number();
  } else if (key == "period" || key == "freq") {
    event.terms.rate = event_terms::sampling_rate{key == "freq", number()};
  } else if (key == "time") {
    // TIME sits before ID in every sample: arec keeps one layout for all events.
    if (number() == 0)
      syntax_error(whole, "time=0 is not supported: arec records the time of every sample");
  } else if (key == "call-graph") {
    if (!text) syntax_error(whole, "term 'call-graph' needs a value (fp, dwarf or no)");
    event.terms.call_graph = parse_call_graph(*text, whole);
  } else if (key == "stack-size") {
    std::uint64_t size = (number() + 7) / 8 * 8;
    if (size > max_dwarf_stack_size)
      syntax_error(whole, "stack-size " + std::to_string(number()) + " is above the most " +
                              std::to_string(max_dwarf_stack_size));
    event.terms.stack_size = static_cast<std::uint32_t>(size);
  } else if (key == "max-stack") {
    if (number() > 0xffff) syntax_error(whole, "max-stack must be at most 65535");
    event.terms.max_stack = static_cast<std::uint16_t>(number());
  } else if (key == "inherit" || key == "no-inherit") {
    event.terms.inherit = (number() != 0) == (key == "inherit");
  } else if (std::find(unsupported_terms.begin(), unsupported_terms.end(), key) !=
             unsupported_terms.end()) {
    syntax_error(whole, "term '" + std::string(key) + "' is not supported by arec");
  } else if (!apply_pmu_term(event, pmu, key, value, whole)) {
    std::string where = pmu.empty() ? "" : " for pmu '" + std::string(pmu) + "'";
    syntax_error(whole, "unknown term '" + std::string(key) + "'" + where +
                            " (valid terms: " + std::string(valid_terms) + ")");
  }
}

}  // namespace

void apply_event_terms(event_spec& event, std::string_view terms, std::string_view pmu,
                       std::string_view whole) {
  while (!terms.empty()) {
    auto comma = terms.find(',');
    std::string_view term = terms.substr(0, comma);
    terms = comma == std::string_view::npos ? std::string_view{} : terms.substr(comma + 1);
    auto equals = term.find('=');
    std::string_view key = term.substr(0, equals);
    if (key.empty() || (comma != std::string_view::npos && terms.empty()))
      syntax_error(whole, "parser error");
    std::optional<std::string_view> value;
    if (equals != std::string_view::npos) value = term.substr(equals + 1);
    apply_term(event, key, value, pmu, whole);
  }
}

std::optional<std::uint32_t> find_pmu_type(std::string_view name) {
  if (!is_name(name)) return std::nullopt;
  std::optional<std::string> text = io::read_text_if_exists(pmu_path(name, "type"));
  if (!text) return std::nullopt;
  std::optional<std::uint64_t> type = parse_number(base::trimmed(*text));
  if (!type || *type > 0xffffffffu) return std::nullopt;
  return static_cast<std::uint32_t>(*type);
}

}  // namespace arec::record
