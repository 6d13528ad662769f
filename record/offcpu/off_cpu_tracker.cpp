#include "record/offcpu/off_cpu_tracker.hpp"

#include <algorithm>

namespace arec::record {

std::size_t off_cpu_tracker::sum_hash::operator()(const sum_view& key) const noexcept {
  // FNV-1a over the frames and the thread: a hash only chooses the bucket (sum_equal decides).
  std::uint64_t hash = 1469598103934665603ull ^ static_cast<std::uint32_t>(key.tid);
  for (std::uint64_t frame : key.stack) hash = (hash ^ frame) * 1099511628211ull;
  return static_cast<std::size_t>(hash);
}

void off_cpu_tracker::switched_out(pid_t pid, pid_t tid, std::uint64_t time, bool blocked,
                                   std::span<const std::uint64_t> stack) {
  stack = blocked ? stack.first(std::min(stack.size(), max_stack_depth)) : stack.first(0);
  queue_.push_back({time, sequence_++, pid, tid, queued_switch::kind::out, blocked, stacks_.size(),
                    stack.size()});
  stacks_.insert(stacks_.end(), stack.begin(), stack.end());
}

void off_cpu_tracker::switched_in(pid_t tid, std::uint64_t time) {
  queue_.push_back({time, sequence_++, 0, tid, queued_switch::kind::in, false, 0, 0});
}

void off_cpu_tracker::exited(pid_t tid, std::uint64_t time) {
  queue_.push_back({time, sequence_++, 0, tid, queued_switch::kind::exit, false, 0, 0});
}

void off_cpu_tracker::settle(std::uint64_t bound, const sink& out) {
  auto ready = std::partition(queue_.begin(), queue_.end(),
                              [bound](const queued_switch& change) { return change.time < bound; });
  std::sort(queue_.begin(), ready, [](const queued_switch& a, const queued_switch& b) {
    return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
  });
  for (auto change = queue_.begin(); change != ready; ++change) apply(*change, out);
  // The switches left keep their stacks, moved to the front of the storage.
  kept_.clear();
  kept_stacks_.clear();
  for (auto change = ready; change != queue_.end(); ++change) {
    queued_switch moved = *change;
    moved.stack_at = kept_stacks_.size();
    kept_stacks_.insert(kept_stacks_.end(), stacks_.begin() + change->stack_at,
                        stacks_.begin() + change->stack_at + change->stack_size);
    kept_.push_back(moved);
  }
  queue_.swap(kept_);
  stacks_.swap(kept_stacks_);
}

void off_cpu_tracker::apply(const queued_switch& change, const sink& out) {
  if (change.what == queued_switch::kind::exit) {
    if (auto found = threads_.find(change.tid); found != threads_.end()) {
      take_thread_sums(change.tid, found->second,
                       change.time - std::min<std::uint64_t>(change.time, 1), out);
      threads_.erase(found);
    }
    return;
  }
  if (change.what == queued_switch::kind::in) {
    auto found = threads_.find(change.tid);
    if (found != threads_.end() && found->second.blocked)
      end_block(change.tid, found->second, change.time, out);
    return;
  }
  thread_state& thread = threads_[change.tid];
  thread.pid = change.pid;
  thread.blocked = change.blocked;
  thread.since = change.time;
  thread.stack.assign(stacks_.begin() + change.stack_at,
                      stacks_.begin() + change.stack_at + change.stack_size);
}

void off_cpu_tracker::end_block(pid_t tid, thread_state& thread, std::uint64_t time,
                                const sink& out) {
  thread.blocked = false;
  if (time < thread.since) return;  // not this block's end: records out of order
  std::uint64_t period = time - thread.since;
  if (period >= threshold_ns_) {
    out({thread.pid, tid, time, period, thread.stack});
    return;
  }
  auto found = sums_.find(sum_view{tid, thread.stack});
  if (found == sums_.end()) {
    found = sums_.emplace(sum_key{tid, thread.stack}, sum{thread.pid}).first;
    thread.sums.push_back(&*found);
  }
  found->second.period_ns += period;
}

void off_cpu_tracker::take_thread_sums(pid_t tid, thread_state& thread, std::uint64_t time,
                                       const sink& out) {
  for (sum_map::value_type* entry : thread.sums) {
    if (entry->second.period_ns > 0)
      out({entry->second.pid, tid, time, entry->second.period_ns, entry->first.stack});
    sums_.erase(sums_.find(sum_view{tid, entry->first.stack}));
  }
  thread.sums.clear();
}

void off_cpu_tracker::take_sums(std::uint64_t time, const sink& out) {
  for (auto& [key, total] : sums_)
    if (total.period_ns > 0) out({total.pid, key.tid, time, total.period_ns, key.stack});
  sums_.clear();
  for (auto& [tid, thread] : threads_) thread.sums.clear();
}

void off_cpu_tracker::finish(std::uint64_t time, const sink& out) {
  settle(UINT64_MAX, out);
  for (auto& [tid, thread] : threads_)
    if (thread.blocked) end_block(tid, thread, time, out);
  take_sums(time, out);
}

}  // namespace arec::record
