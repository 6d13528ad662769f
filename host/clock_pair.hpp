// clock_pair: CLOCK_MONOTONIC and the recording's clock read at one instant. A jitdump's
// timestamps are CLOCK_MONOTONIC, a recording's are perf's clock (the kernel's local_clock
// unless -k names one); with one pair of readings a reader maps the dump's times onto the
// samples' without the user having to record with -k mono.
#pragma once

#include <optional>

#include "perf_data/jitdumps_feature.hpp"

namespace arec::host {

// The pair now: with `clockid` (-k) both are clock_gettime; else perf's clock is the time of
// an event this thread causes (an executable page it maps, seen by a dummy event of its own),
// between two readings of CLOCK_MONOTONIC. nullopt when perf_event_open is refused.
std::optional<perf_data::clock_pair> read_clock_pair(std::optional<int> clockid);

}  // namespace arec::host
