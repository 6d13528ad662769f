#include "record/events/perf_event.hpp"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/system_error.hpp"

namespace arec::record {

perf_event perf_event::open(const perf_event_attr& attr, pid_t pid, int cpu,
                            const std::string& name, int cgroup_fd, const perf_event* leader) {
  unsigned long flags = PERF_FLAG_FD_CLOEXEC;
  if (cgroup_fd >= 0) {  // the kernel takes the cgroup's directory fd in place of the pid
    pid = cgroup_fd;
    flags |= PERF_FLAG_PID_CGROUP;
  }
  int group_fd = leader ? leader->fd() : -1;
  long fd = ::syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, flags);
  if (fd < 0) {
    std::string target = name;
    if (cgroup_fd >= 0)
      target += " in its cgroup on cpu " + std::to_string(cpu);
    else
      target += pid == -1 ? " on cpu " + std::to_string(cpu) : " for pid " + std::to_string(pid);
    base::throw_errno("perf_event_open", target);
  }
  io::unique_fd owner{static_cast<int>(fd)};
  std::uint64_t id = 0;
  base::check_syscall(::ioctl(owner.get(), PERF_EVENT_IOC_ID, &id), "ioctl PERF_EVENT_IOC_ID",
                      name);
  return perf_event{std::move(owner), id};
}

void perf_event::redirect_output_to(const perf_event& ring_owner) const {
  base::check_syscall(::ioctl(fd(), PERF_EVENT_IOC_SET_OUTPUT, ring_owner.fd()),
                      "ioctl PERF_EVENT_IOC_SET_OUTPUT");
}

void perf_event::set_filter(const std::string& filter, const std::string& name) const {
  base::check_syscall(::ioctl(fd(), PERF_EVENT_IOC_SET_FILTER, filter.c_str()),
                      "ioctl PERF_EVENT_IOC_SET_FILTER", "\"" + filter + "\" on " + name);
}

void perf_event::enable() const {
  base::check_syscall(::ioctl(fd(), PERF_EVENT_IOC_ENABLE, 0), "ioctl PERF_EVENT_IOC_ENABLE");
}

void perf_event::disable() const {
  base::check_syscall(::ioctl(fd(), PERF_EVENT_IOC_DISABLE, 0), "ioctl PERF_EVENT_IOC_DISABLE");
}

void perf_event::pause_output(int ring_owner_fd, bool paused) {
  base::check_syscall(::ioctl(ring_owner_fd, PERF_EVENT_IOC_PAUSE_OUTPUT, paused ? 1 : 0),
                      "ioctl PERF_EVENT_IOC_PAUSE_OUTPUT",
                      "the ring of fd " + std::to_string(ring_owner_fd));
}

}  // namespace arec::record
