// perf_event: one kernel perf event (one fd from perf_event_open) and the ioctls arec uses.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "io/unique_fd.hpp"

namespace arec::record {

class perf_event {
 public:
  // Opens `attr` for task `pid` (-1: all tasks) on `cpu` (-1: any cpu); with `cgroup_fd` >= 0
  // (-G) for the tasks of that cgroup on `cpu` instead; in the group `leader` leads (nullptr: a
  // group of its own). `name` is used in messages. Throws std::system_error naming
  // perf_event_open, the event and the target.
  static perf_event open(const perf_event_attr& attr, pid_t pid, int cpu, const std::string& name,
                         int cgroup_fd = -1, const perf_event* leader = nullptr);

  int fd() const { return fd_.get(); }
  // The kernel's id of this event, as samples carry it (PERF_EVENT_IOC_ID).
  std::uint64_t id() const { return id_; }
  // Sends this event's records into `ring_owner`'s ring buffer (same cpu).
  void redirect_output_to(const perf_event& ring_owner) const;
  // Sets a tracepoint filter (--filter). Throws std::system_error naming the ioctl, the filter
  // and the event `name` when the kernel refuses it (EINVAL: a syntax error or unknown field).
  void set_filter(const std::string& filter, const std::string& name) const;
  void enable() const;
  void disable() const;
  // --overwrite: stops (true) or resumes the writes into this event's ring, so a snapshot
  // reads records the kernel is not overwriting (PERF_EVENT_IOC_PAUSE_OUTPUT, as perf).
  static void pause_output(int ring_owner_fd, bool paused);

 private:
  perf_event(io::unique_fd fd, std::uint64_t id) : fd_(std::move(fd)), id_(id) {}
  io::unique_fd fd_;
  std::uint64_t id_ = 0;
};

}  // namespace arec::record
