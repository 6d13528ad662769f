// event_set: every perf event arec opens — each requested event and the tracking event on each
// (task, cpu) — with one ring-owning event per cpu that the others are redirected into.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "record/events/event_attrs.hpp"
#include "record/events/event_spec.hpp"
#include "record/events/perf_event.hpp"

namespace arec::record {

// What to open the events on.
struct event_target {
  std::vector<int> cpus;       // monitored cpus; one ring each
  std::vector<pid_t> tasks{-1};  // -1: every task on the cpu; else the workload or -p tasks
  // -G: per requested event, the fd of the cgroup it counts in, or -1. Only with tasks {-1}.
  std::vector<int> cgroup_fds;
  // -u: a task that ended between the /proc scan and its open is left out (perf's
  // ignore_missing_thread) rather than failing the recording.
  bool skip_gone_tasks = false;
  // --per-thread: one ring per task (cpus is {-1}) rather than one per cpu.
  bool ring_per_task = false;
};

// Why arec opens an event: asked for, or one of its own.
enum class event_role : std::uint8_t {
  requested,       // -e (or the default event)
  tracking,        // side-band records: MMAP, COMM, FORK, EXIT, SWITCH...
  off_cpu_time,    // --off-cpu: names the samples arec writes; never enabled
  switch_sampler,  // --off-cpu: samples each switch-out; consumed, not in the file
};

// One attr as it goes into the file: its name and the ids of all its fds.
struct opened_event {
  std::string name;
  perf_event_attr attr;
  std::vector<std::uint64_t> ids;
  bool tracking = false;
  event_role role = event_role::requested;
  bool precise_max = false;     // 'P': precise_ip is lowered until the kernel accepts it
  bool precise_tried = false;   // every precise_ip was refused; other fallbacks come next
};

class event_set {
 public:
  using notice_fn = std::function<void(const std::string&)>;
  // Opens the events; a hardware event the machine cannot count (no PMU) falls back to its
  // software twin as perf does, announced once through `notice`. Throws std::system_error with
  // a message that says what to do for permission and resource errors.
  static event_set open(std::span<const event_spec> events, const sampling_config& config,
                        const event_target& target, const notice_fn& notice);

  // Every event opened, the hidden switch sampler included (role says which go into a file).
  std::span<const opened_event> events() const { return events_; }
  // What each ring is for, in order: its cpu, or with ring_per_task its task.
  std::vector<int> ring_keys() const;
  // The event whose ring receives everything recorded on the cpu (or for the task) `key`.
  const perf_event& ring_owner(int key) const;
  // Sends every other event into its cpu's ring. The rings must be mapped first: the kernel
  // redirects only into an existing buffer.
  void redirect_into_rings() const;
  void enable_sampling() const;
  // --exclude-perf: perf's filter leaves out perf's main thread, where perf reads its rings; arec
  // reads them on other threads, so these of arec's `threads` are left out too. Sets the filters
  // of the --exclude-perf events (the kernel takes one per event, so open leaves them unset):
  // call once the threads run and before sampling is enabled. Throws std::system_error naming
  // the ioctl.
  void exclude_threads(std::span<const pid_t> threads) const;
  void disable_sampling() const;  // -D ranges; the tracking event goes on
  // --control "enable NAME" / "disable NAME": every fd of the event called `name` (the
  // tracking event's too, as perf allows); false when no event has that name.
  bool set_event_enabled(std::string_view name, bool enabled) const;
  void disable() const;

 private:
  std::vector<opened_event> events_;
  std::vector<perf_event> fds_;
  std::vector<int> fd_rings_;              // the ring key (cpu, or task) of each fd
  std::vector<std::size_t> fd_events_;     // the index into events_ of each fd
  std::vector<std::size_t> sampling_fds_;  // indexes into fds_ of the requested events
  std::map<int, std::size_t> ring_owners_;  // ring key -> index into fds_
  struct recorder_filter {  // an --exclude-perf event: its filter and fds
    std::string filter;
    std::string name;
    std::vector<std::size_t> fds;
  };
  std::vector<recorder_filter> recorder_filters_;
};

}  // namespace arec::record
