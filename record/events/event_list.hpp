// event_list: one -e argument as perf's parse-events grammar reads it: events separated by
// commas, and groups "{a,b}" or "name{a,b}" whose modifiers ("{a,b}:u") apply to every member.
#pragma once

#include <string_view>
#include <vector>

#include "record/events/event_spec.hpp"

namespace arec::record {

// The events of `text` in order, each group's members right after their leader (see
// event_spec::group_size). A group of one event is no group, as in perf. Commas inside
// "pmu/terms/" do not separate events. Throws usage_error: perf's "event syntax error: '...':
// parser error" for a nested or unclosed group or an empty event, and what parse_event_specs
// throws for an event.
std::vector<event_spec> parse_event_list(std::string_view text);

// --group: every event in one group led by the first, whatever groups -e made (perf's
// evlist__set_leader). Nothing changes for a single event.
void group_all_events(std::vector<event_spec>& events);

}  // namespace arec::record
