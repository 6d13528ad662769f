// prerequisites: what an end-to-end test needs from the machine (perf to read the files,
// permission to open perf events of some scope), checked so a test can GTEST_SKIP with why.
#pragma once

#include <optional>
#include <string>

namespace arec::e2e {

// What a recording opens events on.
enum class perf_scope {
  own_child,      // a workload we start: needs perf_event_paranoid <= 2
  other_process,  // -p PID of our own user: same as own_child
  system_wide,    // -a: root or perf_event_paranoid <= 0
  tracepoint,     // -e sys:event: root or perf_event_paranoid <= -1, and a readable tracefs
};

// Why this machine cannot run a test recording at `scope`, or nullopt when it can: perf is
// missing, perf_event_paranoid forbids it for our euid, or perf_event_open itself fails (a
// seccomp filter, a kernel without perf events), with the errno text.
std::optional<std::string> missing_prerequisite(perf_scope scope);

}  // namespace arec::e2e
