// per_process: the one rule for what arec captured per process (a perf map, a container) when a
// file names one pid twice. Within one file two entries for a pid are two processes that had
// it in turn (the pid was reused); samples carry only the pid, so they cannot be told apart,
// and that pid gets neither entry: no name is better than another process's.
#pragma once

#include <sys/types.h>

#include <unordered_map>
#include <vector>

namespace arec::perf_data {

// Each pid of `entries` (anything with a `pid`) with its one entry, or nullptr when the file
// names it more than once. The pointers are into `entries`.
template <typename Entry>
std::unordered_map<pid_t, const Entry*> unambiguous_by_pid(const std::vector<Entry>& entries) {
  std::unordered_map<pid_t, const Entry*> by_pid;
  for (const Entry& entry : entries) {
    auto [found, added] = by_pid.try_emplace(entry.pid, &entry);
    if (!added) found->second = nullptr;
  }
  return by_pid;
}

}  // namespace arec::perf_data
