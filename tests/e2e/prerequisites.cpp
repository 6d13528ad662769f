#include "prerequisites.hpp"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>

#include "io/unique_fd.hpp"
#include "support/child_process.hpp"

namespace arec::e2e {

namespace {

std::optional<int> read_paranoid() {
  std::ifstream file("/proc/sys/kernel/perf_event_paranoid");
  int value = 0;
  if (!(file >> value)) return std::nullopt;
  return value;
}

// Opens one software cpu-clock counter as the recorder would; the errno text on failure.
std::optional<std::string> probe_perf_event_open(pid_t pid, int cpu) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.disabled = 1;
  long fd = ::syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return std::string("perf_event_open: ") + ::strerror(errno);
  io::unique_fd owner(static_cast<int>(fd));
  return std::nullopt;
}

}  // namespace

std::optional<std::string> missing_prerequisite(perf_scope scope) {
  try {
    test::command_result version = test::run_command({"perf", "version"}, std::chrono::seconds(30));
    if (version.exit_code != 0) return "`perf version` failed: " + version.describe();
  } catch (const std::system_error& error) {
    return std::string("perf is not installed (") + error.what() + ")";
  }

  std::optional<int> paranoid = read_paranoid();
  if (!paranoid) return "no /proc/sys/kernel/perf_event_paranoid: kernel without perf events";
  if (::geteuid() != 0) {
    int limit = scope == perf_scope::system_wide ? 0 : scope == perf_scope::tracepoint ? -1 : 2;
    if (*paranoid > limit) {
      return "perf_event_paranoid is " + std::to_string(*paranoid) +
             " and this test needs <= " + std::to_string(limit) + " when not root";
    }
  }

  bool all_cpus = scope == perf_scope::system_wide || scope == perf_scope::tracepoint;
  return all_cpus ? probe_perf_event_open(-1, 0) : probe_perf_event_open(0, -1);
}

}  // namespace arec::e2e
