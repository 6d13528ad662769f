#include "model/threads.hpp"

#include <utility>

namespace arec::model {

threads::threads() {
  // Small to begin with: a -p recording knows a handful of tasks, -a a few thousand.
  for (shard& s : shards_) {
    base::exclusive_lock lock{s.mutex};
    s.by_tid.reserve(8);
  }
}

std::shared_ptr<thread> threads::find(pid_t tid) const {
  shard& s = shard_of(tid);
  base::reader_lock lock{s.mutex};
  auto found = s.by_tid.find(tid);
  return found == s.by_tid.end() ? nullptr : found->second;
}

std::shared_ptr<thread> threads::insert_if_absent(std::shared_ptr<thread> task) {
  pid_t tid = task->tid();
  shard& s = shard_of(tid);
  base::exclusive_lock lock{s.mutex};
  auto [place, inserted] = s.by_tid.try_emplace(tid, std::move(task));
  return place->second;
}

void threads::insert(std::shared_ptr<thread> task) {
  pid_t tid = task->tid();
  shard& s = shard_of(tid);
  base::exclusive_lock lock{s.mutex};
  s.by_tid.insert_or_assign(tid, std::move(task));
}

bool threads::remove(pid_t tid) {
  std::shared_ptr<thread> removed;  // released after the lock, so a last owner frees outside it
  shard& s = shard_of(tid);
  base::exclusive_lock lock{s.mutex};
  auto found = s.by_tid.find(tid);
  if (found == s.by_tid.end()) return false;
  removed = std::move(found->second);
  s.by_tid.erase(found);
  return true;
}

std::size_t threads::size() const {
  std::size_t total = 0;
  for (const shard& s : shards_) {
    base::reader_lock lock{s.mutex};
    total += s.by_tid.size();
  }
  return total;
}

void threads::for_each(const std::function<void(const thread&)>& visit) const {
  for (const shard& s : shards_) {
    base::reader_lock lock{s.mutex};
    for (const auto& [tid, task] : s.by_tid) visit(*task);
  }
}

}  // namespace arec::model
