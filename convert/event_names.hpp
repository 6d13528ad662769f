// event_names: names for the attrs of a recording that lost its EVENT_DESC (arec killed before
// it wrote its features). perf 6.1 then names each attr from its type and config, and calls
// arec's (and perf's) `offcpu-time` attr `unknown-software`. `arec convert --salvage` writes
// EVENT_DESC again with the names it can give: perf's own for hardware, software and raw events
// (util/evsel.c, evsel__name and its modifiers), so nothing changes for those, and
// `offcpu-time` for the attr arec records off-CPU time with (docs/off-cpu.md).
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <span>
#include <string>

#include "perf_data/feature_encoder.hpp"

namespace arec::convert {

// The name perf 6.1 would show for `attr` without EVENT_DESC, except `offcpu-time` for an
// off-CPU attr as arec and perf write it; empty where perf names it from elsewhere
// (tracepoints: their tracing data) or arec does not follow perf's naming (cache events,
// breakpoints, PMUs of their own).
std::string salvaged_event_name(const perf_event_attr& attr);

// Names the events of `events` in file order up to the first one salvaged_event_name cannot
// name (EVENT_DESC names attrs by index; perf names the ones after it itself). Returns how
// many events are named.
std::size_t name_salvaged_events(std::span<perf_data::event_entry> events);

}  // namespace arec::convert
