// Decoder for the binary "QPERFSTREAM" output of perfparser 4.12, i.e. the
// hotspot-perfparser shipped with hotspot 1.3.0 (perfparser commit 617194e8,
// the submodule pinned by hotspot tag v1.3.0).
//
// It exists so tests can compare what arec wrote into a perf.data file with
// what hotspot would show for it, without depending on Qt. Only totals are
// kept: per event (attribute) name and per (event name, symbol name), and the
// "off-CPU Time" cost hotspot's GUI derives from context switches (hotspot
// 1.3 src/parsers/perf/perfparser.cpp, addContextSwitch), computed the same way.
//
// Stream layout, as written by perfparser app/perfunwind.cpp and read by
// hotspot src/parsers/perf/perfparser.cpp:
//   header : "QPERFSTREAM\0" (12 bytes), int32 QDataStream version (LITTLE endian)
//   records: uint32 payload size (LITTLE endian), payload of that many bytes
//   payload: uint8 event type, then QDataStream fields (BIG endian)
// See perfparser_stream.cpp for the per-event field lists.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace arec::test {

// Values of PerfUnwind::EventType; the numeric order is the wire format.
enum class perfparser_event_type : std::uint8_t {
  thread_start = 0,
  thread_end = 1,
  command = 2,
  location_definition = 3,
  symbol_definition = 4,
  string_definition = 5,
  lost_definition = 6,
  features_definition = 7,
  error = 8,
  progress = 9,
  tracepoint_format = 10,
  attributes_definition = 11,
  context_switch_definition = 12,
  sample = 13,
  tracepoint_sample = 14,
};

inline constexpr std::size_t perfparser_event_type_count = 15;

// Printable name of an event type ("Sample", "StringDefinition", ...).
const char* perfparser_event_type_name(perfparser_event_type type);

struct perfparser_event_totals {
  std::uint64_t samples = 0;  // cost entries of samples for this event name
  std::uint64_t cost = 0;     // sum of those costs (the sample period)
};

struct perfparser_symbol_totals {
  // Samples whose leaf frame is the symbol (hotspot "self" cost).
  std::uint64_t self_samples = 0;
  std::uint64_t self_cost = 0;
  // Samples whose stack contains the symbol at least once (hotspot
  // "inclusive" cost; recursion counts once per sample).
  std::uint64_t inclusive_samples = 0;
  std::uint64_t inclusive_cost = 0;
};

struct perfparser_totals {
  std::int32_t data_stream_version = 0;

  // Keyed by attribute name (e.g. "cpu-clock"). Attributes sharing a name
  // are merged, as hotspot merges them into one cost type.
  std::map<std::string, perfparser_event_totals> events;

  // Keyed by (event name, symbol name). Frames without a symbol name are
  // reported as "[unknown]".
  std::map<std::pair<std::string, std::string>, perfparser_symbol_totals> symbols;

  // How many records of each perfparser_event_type were seen.
  std::array<std::uint64_t, perfparser_event_type_count> records{};

  std::uint64_t samples_without_frames = 0;        // counted in events, not in symbols
  std::uint64_t guessed_frames = 0;                // sum of the per-sample guessed frame counts
  std::uint64_t costs_with_unknown_attribute = 0;  // dropped, as hotspot drops them
  std::vector<std::string> error_messages;         // Error records, UTF-8

  // hotspot's "off-CPU Time": for each thread, the time from a SWITCH out to
  // the next SWITCH in, charged (under the event name off_cpu_time_name in
  // `events` and `symbols`) to the stack of the thread's last
  // sched:sched_switch sample; all of it, charged or not, in off_cpu_total.
  std::uint64_t off_cpu_total = 0;
};

inline constexpr const char* off_cpu_time_name = "off-CPU Time";

// Decodes a complete perfparser output file. Returns nullopt and sets `error`
// when the bytes are not a well-formed stream of this layout (bad magic,
// truncated record, record not consumed exactly, undefined ids, ...).
std::optional<perfparser_totals> read_perfparser_stream(std::span<const std::byte> bytes,
                                                        std::string& error);

}  // namespace arec::test
