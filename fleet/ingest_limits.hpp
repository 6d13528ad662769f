// ingest_limits: what Grafana Pyroscope's distributor rejects by default (pkg/validation,
// limits.go), checked before a window is sent so that a window the server would refuse is
// dropped here with the reason, not retried. docs/fleet.md lists what is checked where.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

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
  std::chrono::seconds reject_older_than{3600};
  std::chrono::seconds reject_newer_than{600};
};

// Why a series with these labels would be refused (a bad name, a too long name or value, too
// many names, a name given twice, no service_name), or nullopt when it is acceptable.
std::optional<std::string> label_problem(std::span<const label> labels,
                                         const ingest_limits& limits);

// Why `window` would be refused at `now_ns` (ns since the epoch) apart from its labels: its
// profile too big, empty, or its end too old or too far in the future; nullopt when acceptable.
std::optional<std::string> window_problem(const push_window& window, std::int64_t now_ns,
                                          const ingest_limits& limits);

}  // namespace arec::fleet
