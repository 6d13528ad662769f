// off_cpu_tracker: the time recorded threads spend blocked, as perf's offcpu-time event counts
// it: from a thread's switch-out while blocked (asleep or waiting, not preempted) to its next
// switch-in, charged to the user stack it blocked in. A block at least `threshold` long is one
// sample at its end; shorter ones are summed per thread and stack and given out at a cut (a
// file's end) or the stop, so that on-CPU and off-CPU time still add up to the wall time (perf
// 6.16's --off-cpu-thresh rule). A thread still blocked at the stop gets its time up to it.
//
// A thread's switch-out and its switch-in are often drained from different cpus' rings, in any
// order: switches are queued as they come and applied in time order up to a bound below which
// every ring has been drained (settle, the round protocol of model_feed); pairing in drain order
// would pair a switch-in with the wrong switch-out.
//
// Not thread-safe: its owner serializes the calls.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace arec::record {

// One offcpu-time sample: `period_ns` of blocking by thread `tid` of process `pid` in `stack`
// (the user callchain, leaf first), ending at `time`.
struct off_cpu_sample {
  pid_t pid = 0;
  pid_t tid = 0;
  std::uint64_t time = 0;
  std::uint64_t period_ns = 0;
  std::span<const std::uint64_t> stack;  // valid during the call that gives it
  // --call-graph dwarf: the switch-out's REGS_USER and STACK_USER fields as the sampler
  // recorded them (for a sum, its first block's), written as they are; empty otherwise.
  std::span<const std::byte> user_state;
};

class off_cpu_tracker {
 public:
  using sink = std::function<void(const off_cpu_sample&)>;

  explicit off_cpu_tracker(std::uint64_t threshold_ns) : threshold_ns_(threshold_ns) {}

  // A switch-out of `tid` at `time`; `blocked` unless it was preempted (still runnable). The
  // stack is copied (at most max_stack_depth frames). Queued until settle().
  void switched_out(pid_t pid, pid_t tid, std::uint64_t time, bool blocked,
                    std::span<const std::uint64_t> stack,
                    std::span<const std::byte> user_state = {});
  // A switch-in of `tid` at `time`. Queued until settle().
  void switched_in(pid_t tid, std::uint64_t time);
  // Applies the queued switches older than `bound`, in time order: a switch-in ends the block
  // its thread's switch-out began; a block at least the threshold long goes to `out` now, a
  // shorter one into its thread and stack's sum. A switch-in without a switch-out before it
  // (the first one recorded) ends nothing.
  void settle(std::uint64_t bound, const sink& out);
  // The sums of short blocks, each as one sample at `time`; the sums start again from zero.
  void take_sums(std::uint64_t time, const sink& out);
  // The stop at `time`: everything queued is applied, every thread still blocked gets its time
  // up to `time` (as a sample or into its sum), then the sums go out.
  void finish(std::uint64_t time, const sink& out);
  // Switches queued, not yet applied.
  std::size_t queued() const noexcept { return queue_.size(); }

  // `tid` exited at `time`: from then on it is no longer followed (a reused tid starts afresh;
  // a block it was in when it exited is not off-CPU time). Its sums go out then, 1 ns before
  // the exit: a reader that forgets a process at its EXIT (hotspot) still names their frames.
  // Queued until settle().
  void exited(pid_t tid, std::uint64_t time);
  // Threads being followed (for tests and the summary).
  std::size_t threads() const noexcept { return threads_.size(); }

  static constexpr std::size_t max_stack_depth = 127;  // as perf's --max-stack default

 private:
  // A sum's key: a thread and its stack (compared whole: two stacks are never summed together,
  // whatever their hashes). Looked up by a view, so that adding to a sum allocates nothing.
  struct sum_key {
    pid_t tid = 0;
    std::vector<std::uint64_t> stack;
  };
  struct sum_view {
    pid_t tid = 0;
    std::span<const std::uint64_t> stack;
  };
  struct sum_hash {
    using is_transparent = void;
    std::size_t operator()(const sum_view& key) const noexcept;
    std::size_t operator()(const sum_key& key) const noexcept {
      return (*this)(sum_view{key.tid, key.stack});
    }
  };
  struct sum_equal {
    using is_transparent = void;
    static sum_view view(const sum_key& key) { return {key.tid, key.stack}; }
    static sum_view view(const sum_view& key) { return key; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const noexcept {
      sum_view x = view(a), y = view(b);
      return x.tid == y.tid &&
             std::equal(x.stack.begin(), x.stack.end(), y.stack.begin(), y.stack.end());
    }
  };
  struct sum {
    pid_t pid = 0;
    std::uint64_t period_ns = 0;
    std::vector<std::byte> user_state;  // its first block's (--call-graph dwarf)
  };
  using sum_map = std::unordered_map<sum_key, sum, sum_hash, sum_equal>;

  struct thread_state {
    pid_t pid = 0;
    bool blocked = false;
    std::uint64_t since = 0;
    std::vector<std::uint64_t> stack;  // of the current block; its capacity is reused
    std::vector<std::byte> user_state;  // of the current block (--call-graph dwarf)
    // Its entries in sums_ (elements of an unordered_map stay where they are until erased).
    std::vector<sum_map::value_type*> sums;
  };

  struct queued_switch {
    std::uint64_t time = 0;
    std::uint64_t sequence = 0;  // arrival order, for switches of the same time
    pid_t pid = 0;
    pid_t tid = 0;
    enum class kind : std::uint8_t { out, in, exit } what = kind::in;
    bool blocked = false;
    std::size_t stack_at = 0;  // in stacks_
    std::size_t stack_size = 0;
    std::size_t state_at = 0;  // in states_
    std::size_t state_size = 0;
  };

  // Switches in time order; the sequence (arrival) orders those of the same time.
  static bool earlier(const queued_switch& a, const queued_switch& b) noexcept {
    return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
  }
  void enqueue(const queued_switch& change);
  void keep(std::vector<queued_switch>::const_iterator from,
            std::vector<queued_switch>::const_iterator to);
  void apply(const queued_switch& change, const sink& out);
  void end_block(pid_t tid, thread_state& thread, std::uint64_t time, const sink& out);
  void take_thread_sums(pid_t tid, thread_state& thread, std::uint64_t time, const sink& out);

  std::uint64_t threshold_ns_;
  std::uint64_t sequence_ = 0;
  std::vector<queued_switch> queue_;     // storage reused: nothing allocated per switch
  std::vector<queued_switch> kept_;      // those left queued, while settling
  std::vector<std::size_t> run_starts_;  // queue_ is runs in time order; where each begins
  std::vector<std::size_t> kept_runs_;
  using merge_cursor = std::pair<std::size_t, std::size_t>;  // (next switch, ready prefix end)
  std::vector<merge_cursor> merge_;                          // settle's heap, reused
  std::vector<std::uint64_t> stacks_;                        // the queued switch-outs' stacks
  std::vector<std::uint64_t> kept_stacks_;
  std::vector<std::byte> states_;  // the queued switch-outs' user states (--call-graph dwarf)
  std::vector<std::byte> kept_states_;
  std::unordered_map<pid_t, thread_state> threads_;
  sum_map sums_;
};

}  // namespace arec::record
