#include "convert/event_names.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>

namespace arec::convert {
namespace {

constexpr std::uint64_t hw_event_mask = 0xffffffff;  // perf's PERF_HW_EVENT_MASK (hybrid PMUs)

// perf 6.1's evsel__hw_names and evsel__sw_names, by config.
constexpr std::array<std::string_view, 10> hardware_names{"cycles",
                                                          "instructions",
                                                          "cache-references",
                                                          "cache-misses",
                                                          "branches",
                                                          "branch-misses",
                                                          "bus-cycles",
                                                          "stalled-cycles-frontend",
                                                          "stalled-cycles-backend",
                                                          "ref-cycles"};
constexpr std::array<std::string_view, 10> software_names{
    "cpu-clock",    "task-clock",   "page-faults",      "context-switches", "cpu-migrations",
    "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy"};

// perf's evsel__add_modifiers: ":" then k, u, h for the levels counted when any is excluded,
// p for precise_ip, and H, G when the guest exclusion is not the default.
std::string modifiers(const perf_event_attr& attr) {
  std::string out;
  bool exclude_guest_default = false;
  if (attr.exclude_kernel || attr.exclude_user || attr.exclude_hv) {
    if (!attr.exclude_kernel) out += 'k';
    if (!attr.exclude_user) out += 'u';
    if (!attr.exclude_hv) out += 'h';
    exclude_guest_default = true;
  }
  if (attr.precise_ip) {
    out.append(std::min<std::size_t>(attr.precise_ip, 3), 'p');
    exclude_guest_default = true;
  }
  if (attr.exclude_host || static_cast<bool>(attr.exclude_guest) == exclude_guest_default) {
    if (!attr.exclude_host) out += 'H';
    if (!attr.exclude_guest) out += 'G';
  }
  return out.empty() ? out : ":" + out;
}

// The off-CPU attr arec writes as perf 6.1 declares its own (record/events/event_attrs.cpp,
// off_cpu_time_attr): a software BPF output at frequency 1 with call chains and without the raw
// data a real bpf-output event carries.
bool is_off_cpu_time(const perf_event_attr& attr) {
  return attr.type == PERF_TYPE_SOFTWARE && attr.config == PERF_COUNT_SW_BPF_OUTPUT && attr.freq &&
         attr.sample_freq == 1 && (attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
         !(attr.sample_type & PERF_SAMPLE_RAW);
}

std::string table_name(std::span<const std::string_view> names, std::uint64_t config,
                       std::string_view unknown) {
  return std::string(config < names.size() ? names[config] : unknown);
}

}  // namespace

std::string salvaged_event_name(const perf_event_attr& attr) {
  switch (attr.type) {
    case PERF_TYPE_HARDWARE:
      return table_name(hardware_names, attr.config & hw_event_mask, "unknown-hardware") +
             modifiers(attr);
    case PERF_TYPE_SOFTWARE:
      if (is_off_cpu_time(attr)) return "offcpu-time";
      return table_name(software_names, attr.config, "unknown-software") + modifiers(attr);
    case PERF_TYPE_RAW: {
      char raw[32];
      std::snprintf(raw, sizeof raw, "raw 0x%llx", static_cast<unsigned long long>(attr.config));
      return raw + modifiers(attr);
    }
    default:
      return {};
  }
}

std::size_t name_salvaged_events(std::span<perf_data::event_entry> events) {
  std::size_t named = 0;
  for (perf_data::event_entry& event : events) {
    std::string name = salvaged_event_name(event.attr);
    if (name.empty()) break;
    event.name = std::move(name);
    ++named;
  }
  return named;
}

}  // namespace arec::convert
