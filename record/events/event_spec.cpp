#include "record/events/event_spec.hpp"

#include <fnmatch.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <system_error>

#include "base/usage_error.hpp"
#include "host/tracefs.hpp"
#include "record/events/event_terms.hpp"

namespace arec::record {
namespace {

struct named_event {
  std::string_view name;
  std::uint32_t type;
  std::uint64_t config;
};

// perf's symbolic names (tools/perf/util/parse-events.c, event_symbols_hw/_sw), aliases included.
constexpr std::array named_events{
    named_event{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    named_event{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    named_event{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    named_event{"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    named_event{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    named_event{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    named_event{"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    named_event{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    named_event{"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    named_event{"stalled-cycles-frontend", PERF_TYPE_HARDWARE,
                PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    named_event{"idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    named_event{"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    named_event{"idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    named_event{"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
    named_event{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    named_event{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    named_event{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    named_event{"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    named_event{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    named_event{"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    named_event{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    named_event{"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    named_event{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    named_event{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    named_event{"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
    named_event{"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
    named_event{"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY},
    named_event{"bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT},
    named_event{"cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES},
};

std::optional<named_event> find_named_event(std::string_view name) {
  for (const named_event& event : named_events)
    if (event.name == name) return event;
  return std::nullopt;
}

// "r1a8": a raw PMU config in hex, as perf takes it.
std::optional<std::uint64_t> parse_raw_config(std::string_view name) {
  if (name.size() < 2 || name.size() > 17 || name.front() != 'r') return std::nullopt;
  std::uint64_t config = 0;
  const char* end = name.data() + name.size();
  auto [stop, ec] = std::from_chars(name.data() + 1, end, config, 16);
  if (ec != std::errc{} || stop != end) return std::nullopt;
  return config;
}

// The hardware, software or raw event named `base`, without modifiers.
std::optional<event_spec> find_symbolic_event(std::string_view base) {
  if (auto named = find_named_event(base))
    return event_spec{.type = named->type, .config = named->config};
  if (auto raw = parse_raw_config(base)) return event_spec{.type = PERF_TYPE_RAW, .config = *raw};
  return std::nullopt;
}

}  // namespace

// perf's get_event_modifier: naming any of u/k/h first excludes all three, then each letter
// re-includes its own privilege level; G/H do the same for guest and host; each 'p' raises the
// precision by one. Until G or H is named, 'u' and 'p' exclude guests (as perf on a host that is
// not a guest). An event's own modifiers start from nothing; a group's add to what each member
// already has (`add`), which is why `{cpu-clock:k,task-clock}:u` samples cpu-clock everywhere.
void apply_modifiers(event_spec& event, std::string_view modifiers, std::string_view name,
                     bool add) {
  if (modifiers.empty()) throw base::usage_error("empty modifier in event " + base::quoted(name));
  if (!add) {
    event_spec fresh;
    event.exclude_user = event.exclude_kernel = event.exclude_hv = false;
    event.exclude_guest = event.exclude_host = fresh.exclude_host;
    event.exclude_idle = event.pinned = event.exclusive = event.guest_host_named = false;
    event.precise_ip = 0;
  }
  bool excluding = event.exclude_user || event.exclude_kernel || event.exclude_hv;
  event.precise_max = false;
  event.sample_read = false;
  for (char letter : modifiers) {
    if ((letter == 'u' || letter == 'p') && !event.guest_host_named) event.exclude_guest = true;
    if (letter == 'G' || letter == 'H') {
      if (!event.guest_host_named) event.exclude_guest = event.exclude_host = true;
      event.guest_host_named = true;
      if (letter == 'G') event.exclude_guest = false;
      if (letter == 'H') event.exclude_host = false;
    } else if (letter == 'I') {
      event.exclude_idle = true;
    } else if (letter == 'D') {
      event.pinned = true;
    } else if (letter == 'e') {
      event.exclusive = true;
    } else if (letter == 'S') {
      event.sample_read = true;
    } else if (letter == 'u' || letter == 'k' || letter == 'h') {
      if (!excluding) event.exclude_user = event.exclude_kernel = event.exclude_hv = true;
      excluding = true;
      if (letter == 'u') event.exclude_user = false;
      if (letter == 'k') event.exclude_kernel = false;
      if (letter == 'h') event.exclude_hv = false;
    } else if (letter == 'p') {
      if (++event.precise_ip > 3)
        throw base::usage_error("at most three 'p' modifiers are allowed in event " +
                                base::quoted(name));
    } else if (letter == 'P') {
      event.precise_max = true;
    } else {
      throw base::usage_error("unknown modifier '" + std::string(1, letter) + "' in event " +
                              base::quoted(name) + " (supported: u, k, h, G, H, I, D, e, p, P, S)");
    }
  }
}

namespace {

// Tracepoint systems and events are C identifiers in practice; refusing '/' and dots also
// keeps the name from walking out of tracefs' events directory. `glob` also lets perf's wildcard
// characters through.
bool is_tracepoint_part(std::string_view part, bool glob = false) {
  if (part.empty()) return false;
  for (char c : part) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' ||
              (glob && (c == '*' || c == '?' || c == '[' || c == ']' || c == '!'));
    if (!ok) return false;
  }
  return true;
}

// perf takes a part for a pattern only when it holds '*' or '?' ("[...]" alone is literal).
bool is_glob(std::string_view part) {
  return part.find_first_of("*?") != std::string_view::npos;
}

std::string tracefs_root() {
  try {
    return host::tracefs::root();
  } catch (const std::runtime_error& error) {
    throw base::usage_error(error.what());  // the caller names the event
  }
}

// `pattern` names the user's glob when the tracepoint came from one, for the message.
event_spec make_tracepoint(std::string_view root, std::string_view system,
                           std::string_view event_name, std::string_view pattern = {}) {
  std::string name = std::string(system) + ":" + std::string(event_name);
  std::string origin = pattern.empty() ? "" : " (from " + base::quoted(pattern) + ")";
  std::uint64_t id = 0;
  try {
    id = host::tracefs::read_tracepoint_id(root, system, event_name);
  } catch (const std::system_error& error) {
    if (error.code() == std::errc::no_such_file_or_directory)
      throw base::usage_error("tracepoint " + base::quoted(name) + origin + " does not exist");
    throw base::usage_error("tracepoint " + base::quoted(name) + origin + ": " + error.what());
  }
  return event_spec{.name = std::move(name),
                    .type = PERF_TYPE_TRACEPOINT,
                    .config = id,
                    .tracepoint = std::pair{std::string(system), std::string(event_name)}};
}

// The directories below ROOT/RELATIVE whose names match `pattern`, in tracefs' order.
std::vector<std::string> matching_directories(std::string_view root, const std::string& relative,
                                              const std::string& pattern) {
  std::vector<std::string> names;
  try {
    names = host::tracefs::list_directories(root, relative);
  } catch (const std::system_error& error) {
    throw base::usage_error("tracepoint pattern " + base::quoted(pattern) + ": " + error.what());
  }
  std::erase_if(names, [&](const std::string& name) {
    return ::fnmatch(pattern.c_str(), name.c_str(), 0) != 0;
  });
  return names;
}

// "NAME/TERMS/MODIFIERS": NAME a symbolic event or a PMU of /sys/bus/event_source/devices.
event_spec parse_pmu_syntax(std::string_view name) {
  auto first = name.find('/'), last = name.rfind('/');
  auto syntax_error = [&](const std::string& problem) {
    throw base::usage_error("event syntax error: '" + std::string(name) + "': " + problem);
  };
  if (first == last) syntax_error("parser error");
  std::string_view head = name.substr(0, first);
  std::string_view pmu;
  event_spec event;
  if (auto named = find_named_event(head)) {
    event.type = named->type;
    event.config = named->config;
  } else if (auto type = find_pmu_type(head)) {
    event.type = *type;
    pmu = head;
  } else {
    syntax_error("Cannot find PMU `" + std::string(head) + "'. Missing kernel support?");
  }
  event.name = std::string(name);
  apply_event_terms(event, name.substr(first + 1, last - first - 1), pmu, name);
  std::string_view modifiers = name.substr(last + 1);
  if (!modifiers.empty()) {
    if (modifiers.front() == ':') syntax_error("parser error");  // perf: "cycles/.../u", no ':'
    apply_modifiers(event, modifiers, name, false);
  }
  return event;
}

// "SYSTEM:EVENT/TERMS/MODIFIERS": a tracepoint with the terms perf 6.1 takes for one (its
// config_term_tracepoint: call graphs and inheritance; its overwrite terms arec does not offer
// for any event), named without them, as perf names it; nullopt when the part before the first
// '/' is not a tracepoint's name.
std::optional<event_spec> parse_tracepoint_with_terms(std::string_view name) {
  auto first = name.find('/'), last = name.rfind('/');
  std::string_view head = name.substr(0, first);
  auto colon = head.find(':');
  if (colon == std::string_view::npos || !is_tracepoint_part(head.substr(0, colon)) ||
      !is_tracepoint_part(head.substr(colon + 1)))
    return std::nullopt;
  auto syntax_error = [&](const std::string& problem) {
    throw base::usage_error("event syntax error: '" + std::string(name) + "': " + problem);
  };
  if (first == last) syntax_error("parser error");
  std::string_view terms = name.substr(first + 1, last - first - 1);
  static constexpr std::array<std::string_view, 7> allowed{"call-graph",  "stack-size", "max-stack",
                                                           "inherit",     "no-inherit", "overwrite",
                                                           "no-overwrite"};
  for (std::size_t at = 0; at < terms.size();) {
    std::size_t end = std::min(terms.find(',', at), terms.size());
    std::string_view term = terms.substr(at, end - at);
    std::string_view key = term.substr(0, term.find('='));
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      syntax_error("unknown term '" + std::string(key) +
                   "' for a tracepoint (valid terms: call-graph,stack-size,max-stack,inherit,"
                   "no-inherit)");
    at = end + 1;
  }
  event_spec event = make_tracepoint(tracefs_root(), head.substr(0, colon), head.substr(colon + 1));
  event.name = std::string(head);
  apply_event_terms(event, terms, {}, name);
  if (std::string_view modifiers = name.substr(last + 1); !modifiers.empty())
    apply_modifiers(event, modifiers, name, false);
  return event;
}

}  // namespace

event_spec parse_event_spec(std::string_view name) {
  if (name.empty()) throw base::usage_error("empty event name");
  // A ':' before the first '/' is no PMU syntax: a tracepoint with terms
  // ("sched:sched_switch/call-graph=fp/"), or an unknown event ("sched:../x").
  if (auto slash = name.find('/'); slash != std::string_view::npos) {
    if (name.substr(0, slash).find(':') == std::string_view::npos) return parse_pmu_syntax(name);
    if (auto tracepoint = parse_tracepoint_with_terms(name)) return *tracepoint;
  }
  auto colon = name.rfind(':');
  std::string_view base = name.substr(0, colon);
  std::optional<event_spec> event = find_symbolic_event(base);
  // A raw-looking prefix with a suffix of non-modifier letters ("rcu:x") may be a tracepoint.
  bool modifier_letters_only = colon == std::string_view::npos ||
                               name.find_first_not_of("ukhpP", colon + 1) == std::string_view::npos;
  if (event && (event->type != PERF_TYPE_RAW || modifier_letters_only)) {
    event->name = std::string(name);
    if (colon != std::string_view::npos)
      apply_modifiers(*event, name.substr(colon + 1), name, false);
    return *event;
  }
  if (colon != std::string_view::npos) {
    std::string_view system = name.substr(0, colon);
    std::string_view event_name = name.substr(colon + 1);
    if (is_tracepoint_part(system) && is_tracepoint_part(event_name)) {
      event_spec tracepoint = make_tracepoint(tracefs_root(), system, event_name);
      tracepoint.name = std::string(name);
      return tracepoint;
    }
  }
  throw base::usage_error("unknown event " + base::quoted(name));
}

std::vector<event_spec> parse_event_specs(std::string_view name) {
  auto colon = name.rfind(':');
  if (colon != std::string_view::npos && is_glob(name)) {
    std::string_view system = name.substr(0, colon);
    std::string_view event_name = name.substr(colon + 1);
    if (is_tracepoint_part(system, true) && is_tracepoint_part(event_name, true))
      return find_tracepoints(tracefs_root(), system, event_name);
  }
  return {parse_event_spec(name)};
}

std::vector<event_spec> find_tracepoints(std::string_view root, std::string_view system,
                                         std::string_view event) {
  std::string pattern = std::string(system) + ":" + std::string(event);
  std::vector<std::string> systems{std::string(system)};
  if (is_glob(system)) {
    systems = matching_directories(root, "events", std::string(system));
    if (systems.empty())
      throw base::usage_error("tracepoint " + base::quoted(pattern) +
                              " matches no tracepoint system");
  }
  std::vector<event_spec> found;
  for (const std::string& name : systems) {
    if (!is_glob(event)) {
      found.push_back(make_tracepoint(root, name, event, is_glob(system) ? pattern : ""));
      continue;
    }
    std::vector<std::string> events =
        matching_directories(root, "events/" + name, std::string(event));
    if (events.empty())
      throw base::usage_error("tracepoint " + base::quoted(pattern) +
                              " matches no event of system " + base::quoted(name));
    for (const std::string& event_name : events)
      found.push_back(make_tracepoint(root, name, event_name, pattern));
  }
  return found;
}

void add_filter(event_spec& event, std::string_view filter) {
  if (event.filter.empty()) {
    event.filter = filter;
    return;
  }
  event.filter = "(" + event.filter + ") && (" + std::string(filter) + ")";
}

std::optional<event_spec> software_fallback(const event_spec& event) {
  if (event.type != PERF_TYPE_HARDWARE || event.config != PERF_COUNT_HW_CPU_CYCLES)
    return std::nullopt;
  event_spec fallback = event;
  fallback.type = PERF_TYPE_SOFTWARE;
  fallback.config = PERF_COUNT_SW_CPU_CLOCK;
  // Keep the modifiers the user wrote, as perf's renamed "cpu-clock:ppp" does.
  auto colon = event.name.rfind(':');
  fallback.name = "cpu-clock";
  if (colon != std::string::npos) fallback.name += event.name.substr(colon);
  return fallback;
}

}  // namespace arec::record
