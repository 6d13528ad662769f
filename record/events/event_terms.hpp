// event_terms: perf's PMU term syntax, "NAME/term=value,.../MODIFIERS": the terms perf 6.1
// takes for every event (period, freq, call-graph, name...) and, for a PMU of
// /sys/bus/event_source/devices, the fields of its format/ directory and the names of its events/.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "record/events/event_spec.hpp"

namespace arec::record {

// Applies `terms` (the text between the slashes: "period=1000,name=foo", possibly empty) to
// `event`. `pmu` is the PMU the event was named by ("software/config=1/"), whose format fields
// and event names are terms too; empty for a symbolic event ("cpu-clock/period=1000/"), which
// takes perf's generic terms only. `whole` is the event as written, for messages. Throws
// usage_error in perf's words: "event syntax error: 'cpu-clock/bogus=1/': unknown term 'bogus'
// (valid terms: config,config1,...)", "unknown term 'x' for pmu 'software'".
void apply_event_terms(event_spec& event, std::string_view terms, std::string_view pmu,
                       std::string_view whole);

// The perf_event_attr type of PMU `name` (SYSFS/bus/event_source/devices/NAME/type), or nullopt
// when the machine has no such PMU.
std::optional<std::uint32_t> find_pmu_type(std::string_view name);

}  // namespace arec::record
