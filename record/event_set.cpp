#include "record/event_set.hpp"

#include <cerrno>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "io/system_error.hpp"
#include "io/tracefs.hpp"

namespace arec::record {
namespace {

bool is_unsupported(const std::system_error& error) {
  int code = error.code().value();
  return code == ENOENT || code == ENODEV || code == EOPNOTSUPP;
}

int read_paranoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int level = 2;
  in >> level;
  return level;
}

// Turns a permission error into a message that names the sysctl and the value needed.
[[noreturn]] void explain_and_rethrow(const std::system_error& error, pid_t task) {
  int code = error.code().value();
  if (code == EACCES || code == EPERM) {
    int needed = task == -1 ? 0 : 1;
    throw std::system_error(
        error.code(),
        std::string(error.what()) + " (kernel.perf_event_paranoid is " +
            std::to_string(read_paranoid()) + "; this recording needs " + std::to_string(needed) +
            " or less, or CAP_PERFMON: sysctl -w kernel.perf_event_paranoid=" +
            std::to_string(needed) + ")");
  }
  if (code == EMFILE)
    throw std::system_error(error.code(),
                            std::string(error.what()) +
                                " (too many open files: raise the limit with ulimit -n)");
  if (code == ESRCH && task != -1)
    throw std::system_error(error.code(),
                            "pid " + std::to_string(task) + " does not exist (it may have exited)");
  throw error;
}

}  // namespace

event_set event_set::open(std::span<const event_spec> events, const sampling_config& config,
                          const event_target& target, const notice_fn& notice) {
  event_set set;
  std::vector<std::pair<perf_event_attr, std::string>> attrs;
  for (const event_spec& spec : events)
    attrs.emplace_back(sampling_attr(spec, config), spec.name);
  attrs.emplace_back(tracking_attr(config), "dummy:u");

  for (std::size_t e = 0; e < attrs.size(); ++e) {
    auto& [attr, name] = attrs[e];
    bool tracking = e + 1 == attrs.size();
    opened_event described{name, attr, {}, tracking};
    for (int cpu : target.cpus) {
      for (pid_t task : target.tasks) {
        std::optional<perf_event> fd;
        try {
          fd.emplace(perf_event::open(described.attr, task, cpu, described.name));
        } catch (const std::system_error& error) {
          if (tracking && described.attr.build_id && described.ids.empty() &&
              (error.code().value() == EINVAL || error.code().value() == E2BIG)) {
            // A kernel before 5.12 rejects the bit: MMAP2 then carries inodes and the
            // build-ids are read from the files at the end.
            notice("arec: the kernel does not put build-ids in MMAP2 records (" +
                   error.code().message() + "); reading them from the files instead");
            described.attr.build_id = 0;
            fd.emplace(perf_event::open(described.attr, task, cpu, described.name));
          } else {
            auto fallback = tracking ? std::nullopt : software_fallback(events[e]);
            if (!is_unsupported(error) || !fallback || !described.ids.empty())
              explain_and_rethrow(error, task);
            notice("arec: " + described.name + " is not supported here (" +
                   error.code().message() + "); falling back to " + fallback->name);
            described.attr = sampling_attr(*fallback, config);
            described.name = fallback->name;
            fd.emplace(perf_event::open(described.attr, task, cpu, described.name));
          }
        }
        described.ids.push_back(fd->id());
        set.ring_owners_.try_emplace(cpu, set.fds_.size());
        set.fd_cpus_.push_back(cpu);
        if (!tracking) set.sampling_fds_.push_back(set.fds_.size());
        set.fds_.push_back(std::move(*fd));
      }
    }
    set.events_.push_back(std::move(described));
  }
  return set;
}

const perf_event& event_set::ring_owner(int cpu) const {
  auto owner = ring_owners_.find(cpu);
  if (owner == ring_owners_.end()) throw std::out_of_range("no ring on cpu " + std::to_string(cpu));
  return fds_[owner->second];
}

void event_set::redirect_into_rings() const {
  for (std::size_t i = 0; i < fds_.size(); ++i) {
    std::size_t owner = ring_owners_.at(fd_cpus_[i]);
    if (owner != i) fds_[i].redirect_output_to(fds_[owner]);
  }
}

void event_set::enable_sampling() const {
  for (std::size_t index : sampling_fds_) fds_[index].enable();
}

void event_set::disable() const {
  for (const perf_event& fd : fds_) fd.disable();
}

}  // namespace arec::record
