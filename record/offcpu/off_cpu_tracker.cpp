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
                                   std::span<const std::uint64_t> stack,
                                   std::span<const std::byte> user_state) {
  stack = blocked ? stack.first(std::min(stack.size(), max_stack_depth)) : stack.first(0);
  if (!blocked) user_state = {};
  enqueue({time, sequence_++, pid, tid, queued_switch::kind::out, blocked, stacks_.size(),
           stack.size(), states_.size(), user_state.size()});
  stacks_.insert(stacks_.end(), stack.begin(), stack.end());
  states_.insert(states_.end(), user_state.begin(), user_state.end());
}

void off_cpu_tracker::switched_in(pid_t tid, std::uint64_t time) {
  enqueue({time, sequence_++, 0, tid, queued_switch::kind::in, false, 0, 0, 0, 0});
}

void off_cpu_tracker::exited(pid_t tid, std::uint64_t time) {
  enqueue({time, sequence_++, 0, tid, queued_switch::kind::exit, false, 0, 0, 0, 0});
}

// Switches arrive in runs: each drained chunk of a ring is in time order, and the rings take
// turns. A switch earlier than the one before it starts a new run.
void off_cpu_tracker::enqueue(const queued_switch& change) {
  if (queue_.empty() || earlier(change, queue_.back())) run_starts_.push_back(queue_.size());
  queue_.push_back(change);
}

// Applies the ready prefix of every run (its switches older than `bound`) in time order by a
// k-way merge: a sort of the whole queue had been half of a switch flood's drain time. The
// runs' rests move to the front of the storage, runs still.
void off_cpu_tracker::settle(std::uint64_t bound, const sink& out) {
  merge_.clear();
  kept_runs_.clear();
  kept_.clear();
  kept_stacks_.clear();
  kept_states_.clear();
  // A cursor is (next switch, end of the run's ready prefix); the heap's top is the earliest.
  auto later = [this](const merge_cursor& a, const merge_cursor& b) {
    return earlier(queue_[b.first], queue_[a.first]);
  };
  std::vector<merge_cursor>& heap = merge_;
  for (std::size_t run = 0; run < run_starts_.size(); ++run) {
    auto begin = queue_.begin() + static_cast<std::ptrdiff_t>(run_starts_[run]);
    auto end = run + 1 < run_starts_.size()
                   ? queue_.begin() + static_cast<std::ptrdiff_t>(run_starts_[run + 1])
                   : queue_.end();
    auto ready = std::partition_point(
        begin, end, [bound](const queued_switch& change) { return change.time < bound; });
    if (ready != begin) {
      heap.push_back({static_cast<std::size_t>(begin - queue_.begin()),
                      static_cast<std::size_t>(ready - queue_.begin())});
      std::push_heap(heap.begin(), heap.end(), later);
    }
    if (ready != end) keep(ready, end);
  }
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    merge_cursor& next = heap.back();
    apply(queue_[next.first], out);
    if (++next.first == next.second)
      heap.pop_back();
    else
      std::push_heap(heap.begin(), heap.end(), later);
  }
  queue_.swap(kept_);
  stacks_.swap(kept_stacks_);
  states_.swap(kept_states_);
  run_starts_.swap(kept_runs_);
}

// The switches of [from, to), one run, left queued: copied with their stacks to the front.
void off_cpu_tracker::keep(std::vector<queued_switch>::const_iterator from,
                           std::vector<queued_switch>::const_iterator to) {
  kept_runs_.push_back(kept_.size());
  for (auto change = from; change != to; ++change) {
    queued_switch moved = *change;
    moved.stack_at = kept_stacks_.size();
    kept_stacks_.insert(kept_stacks_.end(), stacks_.begin() + change->stack_at,
                        stacks_.begin() + change->stack_at + change->stack_size);
    moved.state_at = kept_states_.size();
    auto state = states_.begin() + static_cast<std::ptrdiff_t>(change->state_at);
    kept_states_.insert(kept_states_.end(), state,
                        state + static_cast<std::ptrdiff_t>(change->state_size));
    kept_.push_back(moved);
  }
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
  auto state = states_.begin() + static_cast<std::ptrdiff_t>(change.state_at);
  thread.user_state.assign(state, state + static_cast<std::ptrdiff_t>(change.state_size));
}

void off_cpu_tracker::end_block(pid_t tid, thread_state& thread, std::uint64_t time,
                                const sink& out) {
  thread.blocked = false;
  if (time < thread.since) return;  // not this block's end: records out of order
  std::uint64_t period = time - thread.since;
  if (period >= threshold_ns_) {
    out({thread.pid, tid, time, period, thread.stack, thread.user_state});
    return;
  }
  auto found = sums_.find(sum_view{tid, thread.stack});
  if (found == sums_.end()) {
    found = sums_.emplace(sum_key{tid, thread.stack}, sum{thread.pid, 0, thread.user_state}).first;
    thread.sums.push_back(&*found);
  }
  found->second.period_ns += period;
}

void off_cpu_tracker::take_thread_sums(pid_t tid, thread_state& thread, std::uint64_t time,
                                       const sink& out) {
  for (sum_map::value_type* entry : thread.sums) {
    if (entry->second.period_ns > 0)
      out({entry->second.pid, tid, time, entry->second.period_ns, entry->first.stack,
           entry->second.user_state});
    sums_.erase(sums_.find(sum_view{tid, entry->first.stack}));
  }
  thread.sums.clear();
}

void off_cpu_tracker::take_sums(std::uint64_t time, const sink& out) {
  for (auto& [key, total] : sums_)
    if (total.period_ns > 0)
      out({total.pid, key.tid, time, total.period_ns, key.stack, total.user_state});
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
