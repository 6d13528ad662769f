// ingest_limits: what each store refuses (Grafana Pyroscope's distributor by default,
// pkg/validation/limits.go; OTLP's recommended request size; Parca's label rules), checked before
// a window is sent so that a window the server would refuse is dropped here with the reason,
// not retried. docs/fleet.md lists what is checked where.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fleet/push_window.hpp"

namespace arec::fleet {

struct ingest_limits {
  std::size_t max_label_name_length = 1024;
  std::size_t max_label_value_length = 2048;
  std::size_t max_label_names_per_series = 30;
  std::uint64_t max_profile_size_bytes = 4 * 1024 * 1024;  // uncompressed
  // Left to the encoder, which knows the samples: it splits and truncates (export's
  // profile_limits); the server refuses more samples and cuts deeper stacks.
  std::size_t max_samples_per_profile = 16'000;
  std::size_t max_stack_depth = 1'000;
  std::chrono::seconds reject_older_than{3600};  // 0: no limit
  std::chrono::seconds reject_newer_than{600};   // 0: no limit
  bool dots_in_label_names = true;  // Pyroscope takes '.' after the first character; Parca not
  bool needs_service_name = true;
};

// The limits of the store `format` speaks to. OTLP and Parca keep Pyroscope's per-profile
// sample and stack limits: a Collector may forward to Pyroscope, and smaller profiles cost any
// store nothing.
ingest_limits ingest_limits_of(push_format format);

// Why `name` cannot be a Parca label name ([a-zA-Z_][a-zA-Z0-9_]*), or nullopt.
std::optional<std::string> parca_label_problem(std::string_view name);

// Why a series with these labels would be refused (a bad name, a too long name or value, too
// many names, a name given twice, no service_name), or nullopt when it is acceptable.
std::optional<std::string> label_problem(std::span<const label> labels,
                                         const ingest_limits& limits);

// Why `window` would be refused at `now_ns` (ns since the epoch) apart from its labels: its
// profile too big, empty, or its end too old or too far in the future; nullopt when acceptable.
std::optional<std::string> window_problem(const push_window& window, std::int64_t now_ns,
                                          const ingest_limits& limits);

}  // namespace arec::fleet
