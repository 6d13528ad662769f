// event_spec: one event as the user names it with -e ("cycles:u", "cpu-clock",
// "sched:sched_switch", "r1a8"), resolved to the perf_event_attr type and config it opens.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/usage_error.hpp"

namespace arec::record {

enum class call_graph_mode { none, fp, dwarf };

// What perf's PMU term syntax ("cpu-clock/period=1000,call-graph=fp/") sets for one event,
// over what -c, -F, -g and -i set for all of them.
struct event_terms {
  struct sampling_rate {
    bool frequency = false;  // freq=N rather than period=N; the last of the two wins, as in perf
    std::uint64_t value = 0;
    friend bool operator==(const sampling_rate&, const sampling_rate&) = default;
  };
  std::optional<sampling_rate> rate;
  // call-graph=fp|dwarf|no, stack-size=N, max-stack=N. Any of them replaces -g for this event,
  // as in perf: stack-size alone then means no call graph, max-stack alone a frame-pointer one.
  std::optional<call_graph_mode> call_graph;
  std::optional<std::uint32_t> stack_size;  // rounded up to a multiple of 8
  std::optional<std::uint16_t> max_stack;
  bool call_graph_given() const { return call_graph || stack_size || max_stack; }
  std::optional<bool> inherit;  // inherit, no-inherit
  friend bool operator==(const event_terms&, const event_terms&) = default;
};

struct event_spec {
  std::string name;           // as the user wrote it, modifiers included: "cycles:u"
  std::uint32_t type = 0;     // PERF_TYPE_HARDWARE, _SOFTWARE, _TRACEPOINT or _RAW
  std::uint64_t config = 0;   // the event within its type; the tracepoint id for tracepoints
  std::uint64_t config1 = 0;  // config1=, config2= terms (PMU formats may place bits there)
  std::uint64_t config2 = 0;
  event_terms terms;
  // From the modifiers :u :k :h as perf sets them: naming any of u/k/h excludes the others.
  bool exclude_user = false;
  bool exclude_kernel = false;
  bool exclude_hv = false;
  // perf excludes KVM guests by default; with modifiers only 'u' and 'p' do, until :G or :H
  // names guest or host counting explicitly.
  bool exclude_guest = true;
  bool exclude_host = false;      // :G (guest only)
  bool exclude_idle = false;      // :I
  bool pinned = false;            // :D, always on the PMU
  bool exclusive = false;         // :e, alone on the PMU
  std::uint8_t precise_ip = 0;    // the number of 'p' modifiers, 0..3
  bool guest_host_named = false;  // G or H was given (perf's exclude_GH), for group modifiers
  bool sample_read = false;       // :S, the leader's samples carry the counts of its group
  // 'P': the highest precision the machine offers. The attr asks for 3 and event_set lowers it
  // until the kernel accepts, as perf does; explicit 'p's are never lowered.
  bool precise_max = false;
  std::optional<std::pair<std::string, std::string>> tracepoint;  // (system, event)
  // --filter and --exclude-perf of a tracepoint: set on each of its fds once opened; "" = none.
  std::string filter;
  // --exclude-perf: `filter` excludes arec's main thread as perf's excludes perf; event_set
  // also excludes the threads that drain the rings, which perf does in its main thread.
  bool exclude_recorder = false;
  // -G/--cgroup: the cgroup (a path below the cgroup mount) the event counts in; "" = any.
  std::string cgroup;
  // Event groups ({a,b}, --group): the members of a group follow their leader in the event
  // list; the leader holds the group's size (itself included, 2 or more) and name.
  std::uint32_t group_size = 0;  // on a leader; 0 on members and on events outside groups
  bool group_member = false;
  std::string group_name;  // "foo" of "foo{a,b}"; empty for an anonymous group

  friend bool operator==(const event_spec&, const event_spec&) = default;
};

// Parses one event name (no commas). Hardware: cycles/cpu-cycles, instructions,
// cache-references, cache-misses, branches/branch-instructions, branch-misses, bus-cycles,
// ref-cycles, stalled-cycles-frontend/idle-cycles-frontend, stalled-cycles-backend/
// idle-cycles-backend. Software: cpu-clock, task-clock, page-faults/faults,
// context-switches/cs, cpu-migrations/migrations, minor-faults, major-faults,
// alignment-faults, emulation-faults, dummy, bpf-output, cgroup-switches. Raw: "rHEX".
// These take modifiers after a ':' made only of the letters u, k, h, G, H, I, D, e, S, P and up
// to three p's. "NAME/TERMS/MODIFIERS" (NAME a symbolic event or a PMU of
// /sys/bus/event_source/devices) takes perf's terms: see event_terms.hpp.
// Anything else of the form "system:event" is a tracepoint whose id is read from tracefs.
// Throws usage_error: "unknown event 'foo'", "tracepoint 'sched:nope' does not exist",
// "tracefs is not mounted and arec cannot mount it ...", "unknown modifier 'x' in event 'cycles:x'
// ...".
event_spec parse_event_spec(std::string_view name);

// parse_event_spec, and perf's tracepoint wildcards: when the SYSTEM or EVENT part of
// "SYSTEM:EVENT" holds a '*' or '?' it is a glob (fnmatch: *, ?, [...]) and the name stands for
// every matching tracepoint of tracefs, each its own event named "system:event", in the order
// tracefs lists them (perf's readdir order). Throws usage_error when the pattern matches
// nothing (as perf, which refuses it too).
std::vector<event_spec> parse_event_specs(std::string_view name);

// The tracepoints "SYSTEM:EVENT" names below ROOT/events, either part a glob (see
// parse_event_specs), ROOT being a tracefs root or a tree laid out like one. As perf 6.1: a
// system pattern with a plain event needs that event in every system it matches, and an event
// pattern must match in every system. Throws usage_error naming the pattern otherwise.
std::vector<event_spec> find_tracepoints(std::string_view root, std::string_view system,
                                         std::string_view event);

// Applies perf's modifier letters (u, k, h, G, H, I, D, e, p, P, S) to `event`; `name` is for
// messages. An event's own modifiers (`add` false) start from an unmodified event; a group's
// ("{a,b}:u", `add` true) add to what each member already has, as perf's do.
void apply_modifiers(event_spec& event, std::string_view modifiers, std::string_view name,
                     bool add);

// Adds a tracepoint filter to those `event` has, as perf joins them: "(OLD) && (NEW)".
void add_filter(event_spec& event, std::string_view filter);

// perf's fallback for a hardware event that cannot be opened: cycles (and cpu-cycles) become
// cpu-clock with the same modifiers; every other event has none.
std::optional<event_spec> software_fallback(const event_spec& event);

}  // namespace arec::record
