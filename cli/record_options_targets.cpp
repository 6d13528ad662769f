// The record command line's targets: which CPUs and tasks are sampled (-C, -p, -t, -u, -G), and
// perf's rules between them.
#include <limits>
#include <string_view>
#include <vector>

#include "cli/option_values.hpp"
#include "cli/record_option_handlers.hpp"
#include "host/cpu_list.hpp"

namespace arec::cli {
namespace {

// PID[,PID...] or TID[,TID...] into `ids`.
void add_task_ids(std::vector<int>& ids, const option_use& use, std::string_view what) {
  std::string_view rest = use.value;
  for (;;) {
    auto comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    std::optional<std::uint64_t> pid = parse_unsigned(part);
    if (!pid || *pid == 0 || *pid > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      reject(use,
             base::quoted(part) + " is not a " + std::string(what) + " id (a positive integer)");
    ids.push_back(static_cast<int>(*pid));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
}

// perf's target rules: -p/-t win over -u, and -u over -C and -a, each with perf's warning.
void settle_user(record::record_options& options) {
  if (!options.user) return;
  auto warn = [&](const char* text) {
    options.notes.push_back(std::string("arec: warning: ") + text);
  };
  if (!options.pids.empty() || !options.tids.empty()) {
    warn("PID/TID switch overriding UID");
    options.user.reset();
    return;
  }
  if (!options.cpus.empty()) {
    warn("UID switch overriding CPU");
    options.cpus.clear();
  }
  if (options.system_wide) {
    warn("UID switch overriding SYSTEM");
    options.system_wide = false;
  }
}

}  // namespace

void apply_cpus(record_state& state, const option_use& use) {
  try {
    state.options.cpus = host::parse_cpu_list(use.value);
  } catch (const std::invalid_argument& error) {
    reject(use, error.what());
  }
  if (state.options.cpus.empty()) reject(use, "the cpu list is empty");
}

void apply_pids(record_state& state, const option_use& use) {
  add_task_ids(state.options.pids, use, "process");
}

void apply_tids(record_state& state, const option_use& use) {
  add_task_ids(state.options.tids, use, "thread");
}

void apply_user(record_state& state, const option_use& use) {
  if (use.value.empty()) reject(use, "the user is empty");
  state.options.user = std::string(use.value);
}

// -G NAME[,NAME...]: perf's pairing, the Nth cgroup name (over every -G) goes to the Nth event
// given so far; an empty name skips its event. A single name in all goes to every event.
void apply_cgroups(record_state& state, const option_use& use) {
  std::vector<record::event_spec>& events = state.options.events;
  if (events.empty()) reject(use, "must define events before cgroups");
  std::string_view rest = use.value;
  for (;;) {
    std::string_view name = rest.substr(0, rest.find(','));
    std::size_t index = state.cgroups_given++;
    if (!name.empty()) {
      if (index >= events.size())
        reject(use, "cgroup " + base::quoted(name) + " has no event: only " +
                        std::to_string(events.size()) + " given before it with -e");
      events[index].cgroup = std::string(name);
    }
    if (name.size() == rest.size()) break;
    rest.remove_prefix(name.size() + 1);
  }
  if (state.cgroups_given == 1)
    for (record::event_spec& event : events) event.cgroup = events.front().cgroup;
}

void settle_targets(record_state& state) {
  record::record_options& options = state.options;
  settle_user(options);
  // perf's default target: without a workload or -p/-t/-u/-C, the whole system.
  if (options.workload.empty() && options.pids.empty() && options.tids.empty() && !options.user &&
      options.cpus.empty())
    options.system_wide = true;
  // perf 6.15's rule (a later perf lifts it, reading the sample's cpu): latency needs per-task
  // switch records, so a system-wide recording is refused, in perf's words.
  if (state.latency) {
    if (options.system_wide)
      throw base::usage_error("latency profiling is not supported with system-wide collection");
    options.attrs.switch_events = true;
  }
  // perf's rule: the cgroup of an event is a filter on each cpu, so there must be one on each.
  if (state.cgroups_given > 0 && !options.system_wide)
    throw base::usage_error("cgroup monitoring only available in system-wide mode (-a)");
}

}  // namespace arec::cli
