#include "fleet/ingest_limits.hpp"

#include <set>
#include <string_view>

namespace arec::fleet {
namespace {

// Prometheus label names; Pyroscope also accepts '.' after the first character.
bool valid_label_name(std::string_view name, bool dots) {
  if (name.empty()) return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!letter(name.front())) return false;
  for (char c : name.substr(1)) {
    if (!letter(c) && !(c >= '0' && c <= '9') && !(dots && c == '.')) return false;
  }
  return true;
}

}  // namespace

ingest_limits ingest_limits_of(push_format format) {
  ingest_limits limits;
  if (format == push_format::otlp) {
    // The request size OTLP's specification asks servers to accept (v1.11); the attributes are
    // the resource's, not series labels, and no store refuses a window by its age.
    limits.max_profile_size_bytes = 64 * 1024 * 1024;
    limits.reject_older_than = limits.reject_newer_than = std::chrono::seconds(0);
  } else if (format == push_format::parca) {
    // gRPC's default 4 MiB message (the gateway forwards WriteRaw over gRPC) bounds the window.
    limits.reject_older_than = limits.reject_newer_than = std::chrono::seconds(0);
    limits.dots_in_label_names = false;
    limits.needs_service_name = false;
  }
  return limits;
}

std::optional<std::string> parca_label_problem(std::string_view name) {
  if (valid_label_name(name, false)) return std::nullopt;
  return "label name \"" + std::string(name) + "\" is not [a-zA-Z_][a-zA-Z0-9_]*";
}

std::optional<std::string> label_problem(std::span<const label> labels,
                                         const ingest_limits& limits) {
  if (labels.size() > limits.max_label_names_per_series) {
    return std::to_string(labels.size()) + " labels, more than the server's " +
           std::to_string(limits.max_label_names_per_series);
  }
  std::set<std::string_view> seen;
  bool has_service = false;
  for (const label& pair : labels) {
    if (!valid_label_name(pair.name, limits.dots_in_label_names))
      return "label name \"" + pair.name + "\" is not valid";
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
  if (!has_service && limits.needs_service_name) return "no service_name label";
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
  if (older != 0 && window.end_ns < now_ns - older) {
    return "the window ended " + std::to_string((now_ns - window.end_ns) / 1'000'000'000) +
           " s ago, longer than the server accepts (" +
           std::to_string(limits.reject_older_than.count()) + " s)";
  }
  if (newer != 0 && window.start_ns > now_ns + newer) return "the window starts in the future";
  return std::nullopt;
}

}  // namespace arec::fleet
