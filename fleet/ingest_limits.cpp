#include "fleet/ingest_limits.hpp"

#include <set>
#include <string_view>

namespace arec::fleet {
namespace {

// Pyroscope accepts Prometheus label names and also '.' after the first character.
bool valid_label_name(std::string_view name) {
  if (name.empty()) return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!letter(name.front())) return false;
  for (char c : name.substr(1)) {
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '.') return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> label_problem(std::span<const label> labels,
                                         const ingest_limits& limits) {
  if (labels.size() > limits.max_label_names_per_series) {
    return std::to_string(labels.size()) + " labels, more than the server's " +
           std::to_string(limits.max_label_names_per_series);
  }
  std::set<std::string_view> seen;
  bool has_service = false;
  for (const label& pair : labels) {
    if (!valid_label_name(pair.name)) return "label name \"" + pair.name + "\" is not valid";
    if (pair.name.size() > limits.max_label_name_length) {
      return "label name \"" + pair.name.substr(0, 32) + "...\" is longer than " +
             std::to_string(limits.max_label_name_length) + " bytes";
    }
    if (pair.value.size() > limits.max_label_value_length) {
      return "the value of label \"" + pair.name + "\" is longer than " +
             std::to_string(limits.max_label_value_length) + " bytes";
    }
    if (pair.value.empty()) return "label \"" + pair.name + "\" has an empty value";
    if (!seen.insert(pair.name).second) return "label \"" + pair.name + "\" is given twice";
    has_service = has_service || pair.name == "service_name";
  }
  if (!has_service) return "no service_name label";
  return std::nullopt;
}

std::optional<std::string> window_problem(const push_window& window, std::int64_t now_ns,
                                          const ingest_limits& limits) {
  if (window.profile.empty()) return "the profile is empty";
  if (window.uncompressed_size > limits.max_profile_size_bytes) {
    return "the profile is " + std::to_string(window.uncompressed_size) +
           " bytes, more than the server's " + std::to_string(limits.max_profile_size_bytes);
  }
  auto older = std::chrono::nanoseconds(limits.reject_older_than).count();
  auto newer = std::chrono::nanoseconds(limits.reject_newer_than).count();
  if (window.end_ns < now_ns - older) {
    return "the window ended " + std::to_string((now_ns - window.end_ns) / 1'000'000'000) +
           " s ago, longer than the server accepts (" +
           std::to_string(limits.reject_older_than.count()) + " s)";
  }
  if (window.start_ns > now_ns + newer) return "the window starts in the future";
  return std::nullopt;
}

}  // namespace arec::fleet
