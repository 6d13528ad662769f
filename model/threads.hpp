// threads: every live task, keyed by tid, in a hash table split into shards with a lock each,
// so synthesis workers and streaming threads touching different tasks rarely meet on a lock.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <unordered_map>

#include "base/annotated_mutex.hpp"
#include "model/thread.hpp"

namespace arec::model {

class threads {
 public:
  static constexpr std::size_t shard_count = 16;  // a power of two

  threads();

  // The thread `tid`, or nullptr. Takes one shard's lock shared; allocates nothing.
  std::shared_ptr<thread> find(pid_t tid) const;
  // The thread `tid`; when it is unknown, it is created by `make()` (which must return a thread
  // with that tid) and inserted. When two callers race, one thread wins and both get it.
  // A template so that a hit costs no std::function: nothing is allocated unless `make` runs.
  template <typename Make>
  std::shared_ptr<thread> find_or_add(pid_t tid, Make&& make) {
    if (auto found = find(tid)) return found;
    return insert_if_absent(make());  // made outside the lock: it may allocate and copy maps
  }
  // Inserts `task`, replacing a thread with the same tid (a tid the kernel reused).
  void insert(std::shared_ptr<thread> task);
  // Removes `tid`; returns whether it was there. Holders of the thread keep it valid.
  bool remove(pid_t tid);
  std::size_t size() const;
  // Calls `visit` for every thread; each shard is held shared while it is visited, so
  // `visit` must not call back into this table.
  void for_each(const std::function<void(const thread&)>& visit) const;

 private:
  // Inserts `task` unless its tid is present; returns the thread the table holds.
  std::shared_ptr<thread> insert_if_absent(std::shared_ptr<thread> task);

  struct shard {
    mutable base::shared_mutex mutex;
    std::unordered_map<pid_t, std::shared_ptr<thread>> by_tid AREC_GUARDED_BY(mutex);
  };
  shard& shard_of(pid_t tid) const noexcept {
    return shards_[static_cast<std::size_t>(tid) & (shard_count - 1)];
  }

  mutable std::array<shard, shard_count> shards_;
};

}  // namespace arec::model
