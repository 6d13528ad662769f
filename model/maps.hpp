// maps: the mappings of one address space, as a sorted array of non-overlapping ranges. A new
// mapping replaces whatever it overlaps, splitting or trimming older ones, as the kernel does
// and perf's maps__fixup_overlap_and_insert mirrors.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/annotated_mutex.hpp"
#include "model/map.hpp"

namespace arec::model {

class maps {
 public:
  maps() = default;
  // A copy of `other`'s mappings (a forked process starts with its parent's).
  explicit maps(const maps& other) AREC_EXCLUDES(other.mutex_);
  maps& operator=(const maps&) = delete;

  // Inserts `entry` (start < end, else ignored). Older maps it overlaps lose the overlapped
  // part: one covered entirely is removed, one overlapped at an edge is trimmed, one the new
  // map falls inside is split in two (the right piece's pgoff moves by the bytes cut off).
  void insert(const map& entry) AREC_EXCLUDES(mutex_);
  // The map containing `address`, or nullopt.
  std::optional<map> find(std::uint64_t address) const AREC_EXCLUDES(mutex_);
  // Every map in address order.
  std::vector<map> entries() const AREC_EXCLUDES(mutex_);
  std::size_t size() const AREC_EXCLUDES(mutex_);
  // True exactly once per address space: for its process's first sample (whose container the
  // recording then notes).
  bool mark_sampled() noexcept { return !sampled_.exchange(true, std::memory_order_relaxed); }
  // True exactly once per address space: for the first sample in its JIT code (anonymous
  // executable memory), whose runtime's perf map the recording then captures.
  bool mark_jit_sampled() noexcept {
    return !jit_sampled_.exchange(true, std::memory_order_relaxed);
  }
  // True once a sample fell in its JIT code.
  bool jit_sampled() const noexcept { return jit_sampled_.load(std::memory_order_relaxed); }
  // Debug builds: entries sorted, non-empty and disjoint; aborts otherwise.
  void check_invariants() const AREC_EXCLUDES(mutex_);

 private:
  mutable base::shared_mutex mutex_;
  std::vector<map> sorted_ AREC_GUARDED_BY(mutex_);
  std::atomic<bool> sampled_{false};      // a copy (a forked child) starts unmarked
  std::atomic<bool> jit_sampled_{false};  // likewise
};

}  // namespace arec::model
