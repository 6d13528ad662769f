#include "record/events/event_set.hpp"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "base/system_error.hpp"
#include "host/tracefs.hpp"
#include "io/small_file.hpp"

namespace arec::record {
namespace {

bool is_unsupported(const std::system_error& error) {
  int code = error.code().value();
  return code == ENOENT || code == ENODEV || code == EOPNOTSUPP;
}

int read_paranoid() {
  std::array<char, 32> buffer;
  auto text = io::read_small_file(AT_FDCWD, "/proc/sys/kernel/perf_event_paranoid", buffer);
  int level = 2;
  if (text) std::from_chars(text->data(), text->data() + text->size(), level);
  return level;
}

// Turns a refusal into one message that says what to do. The system_error's own text already
// ends with strerror, so the explanation is appended to it in a plain runtime_error.
[[noreturn]] void explain_and_rethrow(const std::system_error& error, const opened_event& event,
                                      pid_t task) {
  int code = error.code().value();
  // What perf says in these cases, in the user's terms rather than the system call's.
  if (code == ENOENT || code == ENODEV)
    throw std::runtime_error("the " + event.name + " event is not supported on this machine " +
                             "(cpu-clock samples by time on any machine: -e cpu-clock)");
  if (code == EOPNOTSUPP && event.attr.branch_sample_type != 0)  // perf's words, with the options
    throw std::runtime_error(event.name + ": PMU hardware or event type doesn't support branch " +
                             "stack sampling (-b, -j)");
  if (code == EOPNOTSUPP && event.attr.precise_ip > 0)
    throw std::runtime_error("the 'precise' request of " + event.name +
                             " may not be supported: try it without the 'p' modifiers");
  if (code == EOPNOTSUPP)
    throw std::runtime_error("the " + event.name + " event cannot sample on this machine (its " +
                             "PMU has no overflow interrupt); count it with perf stat instead");
  if (code == EACCES || code == EPERM) {
    int needed = task == -1 ? 0 : 2;
    throw std::runtime_error(std::string(error.what()) + " (kernel.perf_event_paranoid is " +
                             std::to_string(read_paranoid()) + "; this recording needs " +
                             std::to_string(needed) + " or less, or CAP_PERFMON: sysctl -w " +
                             "kernel.perf_event_paranoid=" + std::to_string(needed) + ")");
  }
  if (code == EMFILE)
    throw std::runtime_error(std::string(error.what()) +
                             " (too many open files: raise the limit with ulimit -n)");
  if (code == ESRCH && task != -1)
    throw std::runtime_error("pid " + std::to_string(task) +
                             " does not exist (it may have exited)");
  throw error;
}

// perf's answers to a refused perf_event_open, tried in this order. Each changes the event and
// is announced once; anything else is an error.
bool apply_fallback(const std::system_error& error, opened_event& event,
                    const std::optional<event_spec>& software_twin, const sampling_config& config,
                    pid_t task, const event_set::notice_fn& notice) {
  int code = error.code().value();
  bool first_fd = event.ids.empty();
  if (event.tracking && event.attr.build_id && first_fd && (code == EINVAL || code == E2BIG)) {
    // A kernel before 5.12 rejects the bit: MMAP2 then carries inodes and the build-ids are
    // read from the files at the end.
    notice("arec: the kernel does not put build-ids in MMAP2 records (" + error.code().message() +
           "); reading them from the files instead");
    event.attr.build_id = 0;
    return true;
  }
  if (event.precise_max && first_fd && !event.precise_tried) {
    // perf's first answer to any refusal of a 'P' event, and a silent one: a level lower,
    // down to 0; when even 0 fails, back to the maximum, and the other answers follow.
    if (event.attr.precise_ip > 0) {
      --event.attr.precise_ip;
      return true;
    }
    event.attr.precise_ip = max_precise_ip;
    event.precise_tried = true;
  }
  // Once: a twin that is refused too (a branch stack asked of cpu-clock) is an error, not a loop.
  bool is_twin = software_twin && event.attr.type == software_twin->type &&
                 event.attr.config == software_twin->config;
  if (!event.tracking && software_twin && !is_twin && first_fd && is_unsupported(error)) {
    notice("arec: " + event.name + " is not supported here (" + error.code().message() +
           "); falling back to " + software_twin->name);
    perf_event_attr twin = sampling_attr(*software_twin, config);
    twin.exclude_kernel |= event.attr.exclude_kernel;  // keep what an earlier fallback decided
    twin.exclude_hv |= event.attr.exclude_hv;
    // What membership of a group decided (make_group_member) stays as it was.
    twin.disabled = event.attr.disabled;
    twin.enable_on_exec = event.attr.enable_on_exec;
    twin.freq = event.attr.freq;
    twin.sample_period = event.attr.sample_period;
    twin.sample_type = event.attr.sample_type;
    event.attr = twin;
    event.name = software_twin->name;
    event.precise_tried = false;  // a new event: its precision is tried afresh
    return true;
  }
  if (event.role == event_role::switch_sampler && (code == EACCES || code == EPERM))
    // A switch is sampled in the scheduler, in kernel context: in user space alone it never
    // fires, so an empty off-CPU profile would be the result.
    throw std::runtime_error(
        "--off-cpu: kernel.perf_event_paranoid=" + std::to_string(read_paranoid()) +
        " forbids the kernel samples a context switch gives (" + error.code().message() +
        "); run as root or set kernel.perf_event_paranoid to 1 or lower");
  if (task != -1 && first_fd && !event.attr.exclude_kernel && (code == EACCES || code == EPERM)) {
    // perf_event_paranoid 2 lets a user profile its own tasks in user space only.
    if (!event.tracking)
      notice("arec: kernel.perf_event_paranoid=" + std::to_string(read_paranoid()) +
             " forbids kernel samples of " + event.name + "; recording user space only");
    event.attr.exclude_kernel = 1;
    event.attr.exclude_hv = 1;
    return true;
  }
  return false;
}

perf_event open_with_fallbacks(opened_event& event, const std::optional<event_spec>& software_twin,
                               const sampling_config& config, pid_t task, int cpu, int cgroup_fd,
                               const perf_event* leader, bool skip_gone,
                               const event_set::notice_fn& notice) {
  for (;;) {
    try {
      return perf_event::open(event.attr, task, cpu, event.name, cgroup_fd, leader);
    } catch (const std::system_error& error) {
      if (skip_gone && task != -1 && error.code().value() == ESRCH) throw;  // the caller skips it
      if (!apply_fallback(error, event, software_twin, config, task, notice))
        explain_and_rethrow(error, event, task);
    }
  }
}

// One fd of `event`; nullopt for a task that is gone when the target allows that (-u).
std::optional<perf_event> open_task(opened_event& event,
                                    const std::optional<event_spec>& software_twin,
                                    const sampling_config& config, pid_t task, int cpu,
                                    int cgroup_fd, const perf_event* leader,
                                    const event_target& target,
                                    const event_set::notice_fn& notice) {
  try {
    return open_with_fallbacks(event, software_twin, config, task, cpu, cgroup_fd, leader,
                               target.skip_gone_tasks, notice);
  } catch (const std::system_error& error) {
    if (target.skip_gone_tasks && task != -1 && error.code().value() == ESRCH) return std::nullopt;
    throw;
  }
}

}  // namespace

event_set event_set::open(std::span<const event_spec> events, const sampling_config& config,
                          const event_target& target, const notice_fn& notice) {
  event_set set;
  std::vector<opened_event> requested;
  for (const event_spec& spec : events)
    requested.push_back(
        {.name = spec.name, .attr = sampling_attr(spec, config), .precise_max = spec.precise_max});
  // Each member's leader, by index into `events` (a leader and a lone event lead themselves).
  std::vector<std::size_t> leaders(events.size());
  for (std::size_t e = 0; e < events.size(); ++e) {
    leaders[e] = events[e].group_member && e > 0 ? leaders[e - 1] : e;
    if (leaders[e] != e) make_group_member(requested[e].attr, requested[leaders[e]].attr);
  }
  perf_event_attr tracking = tracking_attr(config);
  // An event's own call-graph=dwarf needs the data mappings too (the unwinder's stack and heap).
  for (const opened_event& event : requested)
    if ((event.attr.sample_type & PERF_SAMPLE_STACK_USER) &&
        (event.attr.sample_type & PERF_SAMPLE_REGS_USER))  // not fp's small snapshot
      tracking.mmap_data = 1;
  requested.push_back({"dummy:u", tracking, {}, true, event_role::tracking});
  if (config.attrs.off_cpu) {
    requested.push_back(
        {"offcpu-time", off_cpu_time_attr(config), {}, false, event_role::off_cpu_time});
    requested.push_back(
        {"context-switches", switch_sampler_attr(config), {}, false, event_role::switch_sampler});
  }

  // Each event's fd (index into fds_) for the n-th (cpu, task), no_fd where the task was gone:
  // a member's fd for the n-th is opened in the group of its leader's n-th fd.
  constexpr std::size_t no_fd = ~std::size_t{0};
  std::vector<std::vector<std::size_t>> instance_fds(requested.size());
  for (std::size_t e = 0; e < requested.size(); ++e) {
    opened_event& event = requested[e];
    bool asked = event.role == event_role::requested;  // events[e] is its spec
    bool member = asked && leaders[e] != e;
    std::optional<event_spec> software_twin = asked ? software_fallback(events[e]) : std::nullopt;
    bool exclude_recorder = asked && events[e].exclude_recorder;
    if (exclude_recorder) set.recorder_filters_.push_back({events[e].filter, event.name, {}});
    int cgroup_fd = !asked || e >= target.cgroup_fds.size() ? -1 : target.cgroup_fds[e];
    for (int cpu : target.cpus) {
      for (pid_t task : target.tasks) {
        std::size_t instance = instance_fds[e].size();
        instance_fds[e].push_back(no_fd);
        const perf_event* leader = nullptr;
        if (member) {
          std::size_t leader_fd = instance_fds[leaders[e]][instance];
          if (leader_fd == no_fd) continue;  // the leader's task was gone: so is this one
          leader = &set.fds_[leader_fd];
        }
        std::optional<perf_event> opened =
            open_task(event, software_twin, config, task, cpu, cgroup_fd, leader, target, notice);
        if (!opened) continue;
        perf_event fd = std::move(*opened);
        // Before anything is enabled, so no sample escapes the filter (perf sets it likewise).
        // The kernel takes one filter per event: an --exclude-perf one is set whole by
        // exclude_threads, once the threads to name are known.
        if (asked && !events[e].filter.empty() && !exclude_recorder)
          fd.set_filter(events[e].filter, event.name);
        event.ids.push_back(fd.id());
        int ring = target.ring_per_task ? task : cpu;
        set.ring_owners_.try_emplace(ring, set.fds_.size());
        set.fd_rings_.push_back(ring);
        set.fd_events_.push_back(e);
        // Sampling starts and stops with the requested events; the switch sampler follows them
        // (-D, --control), the offcpu-time event never samples.
        if (asked || event.role == event_role::switch_sampler)
          set.sampling_fds_.push_back(set.fds_.size());
        if (exclude_recorder) set.recorder_filters_.back().fds.push_back(set.fds_.size());
        instance_fds[e].back() = set.fds_.size();
        set.fds_.push_back(std::move(fd));
      }
    }
    set.events_.push_back(std::move(event));
  }
  return set;
}

std::vector<int> event_set::ring_keys() const {
  std::vector<int> keys;
  for (const auto& [key, owner] : ring_owners_) keys.push_back(key);
  return keys;
}

const perf_event& event_set::ring_owner(int key) const {
  auto owner = ring_owners_.find(key);
  if (owner == ring_owners_.end()) throw std::out_of_range("no ring for " + std::to_string(key));
  return fds_[owner->second];
}

void event_set::redirect_into_rings() const {
  for (std::size_t i = 0; i < fds_.size(); ++i) {
    std::size_t owner = ring_owners_.at(fd_rings_[i]);
    if (owner != i) fds_[i].redirect_output_to(fds_[owner]);
  }
}

void event_set::enable_sampling() const {
  for (std::size_t index : sampling_fds_) fds_[index].enable();
}

void event_set::disable_sampling() const {
  for (std::size_t index : sampling_fds_) fds_[index].disable();
}

bool event_set::set_event_enabled(std::string_view name, bool enabled) const {
  bool found = false;
  for (std::size_t i = 0; i < fds_.size(); ++i) {
    if (events_[fd_events_[i]].name != name) continue;
    found = true;
    if (enabled)
      fds_[i].enable();
    else
      fds_[i].disable();
  }
  return found;
}

void event_set::exclude_threads(std::span<const pid_t> threads) const {
  std::string others;
  for (pid_t tid : threads) {
    if (tid == ::getpid()) continue;  // already in the filter, as perf puts it
    if (!others.empty()) others += " && ";
    others += "common_pid != " + std::to_string(tid);
  }
  for (const recorder_filter& event : recorder_filters_) {
    std::string filter =
        others.empty() ? event.filter : "(" + event.filter + ") && (" + others + ")";
    for (std::size_t index : event.fds) fds_[index].set_filter(filter, event.name);
  }
}

void event_set::disable() const {
  for (const perf_event& fd : fds_) fd.disable();
}

}  // namespace arec::record
