// recording_facts: what a reader needs to trust a report: the events, the rate, when and how
// long, how many samples and how many the kernel lost, the command line, host, kernel, and
// which perf and arec wrote and read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/exporter.hpp"

namespace arec::report {

struct recording_facts {
  std::vector<std::string> events;  // the recording's events, in file order
  std::string period_unit;          // "nanoseconds": a time-based event; "count" otherwise
  std::int64_t period = 0;          // -c, or 1e9 / -F ns; 0 when unknown
  std::int64_t start_ns = 0;        // wall clock, ns since the epoch
  std::int64_t duration_ns = 0;
  std::uint64_t samples = 0;
  std::uint64_t lost = 0;
  std::string command_line;  // the recorder's command line (CMDLINE), words joined by spaces
  std::string host;          // HOSTNAME
  std::string kernel;        // OSRELEASE
  std::string recorded_by;   // VERSION: the perf version the recorder claims
  std::string arec_version;  // of the arec writing the report
  std::vector<std::string> inputs;
  std::string base;  // --diff BASE: the recording compared with, "" for none
  std::uint64_t base_samples = 0;
};

// The facts of `recorded`. Feature payloads that are missing or malformed leave their field
// empty: a report never fails for them.
recording_facts facts_of(const exporting::recorded_profile& recorded,
                         std::vector<std::string> inputs, std::string arec_version);

// The text of a perf string feature payload (u32 length, then the bytes padded with NULs), or
// "" when `payload` is too short for its length.
std::string perf_string(std::span<const std::byte> payload);
// CMDLINE: u32 count, then that many perf strings, joined by spaces; "" when malformed.
std::string perf_command_line(std::span<const std::byte> payload);

}  // namespace arec::report
