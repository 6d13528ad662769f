// off_cpu_recorder: --off-cpu for a whole recording, shared by its streaming threads. Each
// drained chunk's switches (the switch sampler's samples, SWITCH records, EXITs) are handed to
// the tracker as they are scanned; at the end of each thread's round, the switches older than
// what every thread has drained are applied, and the blocks they end come back encoded as
// offcpu-time SAMPLEs for that thread to write before its round's marker. The stop gives the
// rest (blocks still open, sums of short blocks) to the last thread to end.
//
// Lock: `mutex_` guards the tracker and the rounds' bounds; a scan takes it once per chunk.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/annotated_mutex.hpp"
#include "model/machine.hpp"
#include "record/offcpu/off_cpu_tracker.hpp"
#include "record/streaming/ring_reader.hpp"
#include "symbols/process_cfi.hpp"

namespace arec::record {

// Where the records hold what --off-cpu reads, and how its samples are written.
struct off_cpu_layout {
  std::uint64_t sampler_sample_type = 0;     // the switch sampler's attr
  std::vector<std::uint64_t> sampler_ids;    // its fds' ids, sorted
  std::uint64_t output_sample_type = 0;      // the offcpu-time attr
  std::uint64_t output_id = 0;               // the id its samples carry
  std::size_t trailer_time_from_end = 0;     // a side-band record's TIME, bytes before its end
  std::uint64_t threshold_ns = 500'000'000;  // --off-cpu-thresh
  std::uint64_t sampler_regs_user = 0;       // the sampler's sample_regs_user (--user-regs)
};

// --call-graph dwarf: offcpu-time samples carry the sampler's user registers and stack.
constexpr bool keeps_user_state(const off_cpu_layout& layout) noexcept {
  constexpr std::uint64_t both = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  return (layout.sampler_sample_type & both) == both && (layout.output_sample_type & both) == both;
}

class off_cpu_recorder {
 public:
  // `machine`: the recording's model, whose maps say which object's CFI completes a
  // frame-pointer stack (symbols/chain_completion); nullptr leaves stacks as sampled.
  off_cpu_recorder(off_cpu_layout layout, std::size_t streaming_threads,
                   const model::machine* machine = nullptr);

  // What a ring's previous chunk left: the switch sampler's sample that the SWITCH out record
  // after it (in the same ring) completes.
  struct ring_state {
    std::size_t thread = 0;  // the streaming thread that drains the ring
    pid_t pid = -1;
    pid_t tid = -1;
    std::vector<std::uint64_t> stack;  // user frames, leaf first; capacity reused
    std::vector<std::byte> stack_copy;  // the sample's user-stack copy; capacity reused
    std::size_t stack_copy_bytes = 0;   // of stack_copy, this sample's
    std::vector<std::byte> user_state;  // REGS_USER and STACK_USER as sampled (dwarf)
    bool incomplete = false;  // the stack could not be completed from CFI
  };
  // Hands the switches of one drained chunk (the ring's own order) to the tracker.
  void scan(const ring_chunk& chunk, ring_state& ring) AREC_EXCLUDES(mutex_);
  // Streaming thread `thread` begins a round: what it has scanned so far will be drained on
  // every one of its rings once the round is finished.
  void round_started(std::size_t thread) AREC_EXCLUDES(mutex_);
  // ... and finished it: the switches every thread has drained are applied; the SAMPLEs of the
  // blocks they end are appended to `out`.
  void round_finished(std::size_t thread, std::vector<std::byte>& out) AREC_EXCLUDES(mutex_);
  // --switch-output: streaming thread `thread` drained every ring for the cut; what it scanned
  // so far belongs to the file before the cut.
  void thread_cut(std::size_t thread) AREC_EXCLUDES(mutex_);
  // Once every thread has cut: the blocks that ended before the cut and the sums of short ones,
  // appended to `out`, for the file before the cut (a file holds the off-CPU time that ended
  // in it); the sums start again from zero.
  void cut(std::vector<std::byte>& out) AREC_EXCLUDES(mutex_);
  // Streaming thread `thread` drained its rings for the last time. The last one to do so gets
  // everything left in `out` (returns true): the open blocks ended at the newest time seen, and
  // the sums of short blocks.
  bool thread_ended(std::size_t thread, std::vector<std::byte>& out) AREC_EXCLUDES(mutex_);
  // What was given out: samples and their blocked nanoseconds; and the blocked switch-outs
  // the sampler gave no stack for (its sample lost, or -D between them), not counted.
  struct totals {
    std::uint64_t samples = 0;
    std::uint64_t blocked_ns = 0;
    std::uint64_t unattributed = 0;
    // Switch-outs whose frame-pointer stack could not be completed from CFI (no CFI, stack
    // copy too short, JIT code): charged to the stack frame pointers gave.
    std::uint64_t incomplete = 0;
  };
  totals counted() AREC_EXCLUDES(mutex_);

  // What the drain leaves out of the files: the sampler's samples, found by their id.
  std::span<const std::uint64_t> sampler_ids() const noexcept { return layout_.sampler_ids; }
  std::size_t sampler_id_offset() const noexcept { return id_offset_; }

  // A frame rule the recorder found for a process's address (its cache, cleared at every new
  // executable mapping).
  struct cached_rule {
    pid_t pid = -1;
    std::uint64_t pc = 0;
    symbols::frame_rule rule;
  };
  static constexpr std::size_t rule_cache_entries = 1024;

  // The SAMPLE encoding of one block, for tests of the layout.
  static void encode(const off_cpu_layout& layout, const off_cpu_sample& sample,
                     std::vector<std::byte>& out);

 private:
  struct thread_progress {
    std::uint64_t round_bound = 0;  // the newest time scanned anywhere when its round began
    std::uint64_t drained_until = 0;
    std::uint64_t cut_bound = 0;  // the newest time scanned anywhere when it cut
    bool ended = false;
  };
  void scan_sample(const ring_chunk& chunk, std::size_t body, std::size_t end, ring_state& ring)
      AREC_REQUIRES(mutex_);
  void scan_switch(const ring_chunk& chunk, std::size_t end, std::uint16_t misc, ring_state& ring)
      AREC_REQUIRES(mutex_);
  // The sampled stack's copy (STACK_USER after the chain at `after_chain`) into the ring's
  // buffer; empty when the sampler has none.
  void copy_user_stack(const ring_chunk& chunk, std::size_t after_chain, std::size_t end,
                       ring_state& ring) const;
  void complete_stack(ring_state& ring) AREC_REQUIRES(mutex_);
  void note_side_band(const ring_chunk& chunk, std::size_t offset, std::size_t size)
      AREC_REQUIRES(mutex_);
  bool read_maps(pid_t pid, pid_t tid) AREC_REQUIRES(mutex_);
  std::uint64_t settled_bound() const AREC_REQUIRES(mutex_);
  std::uint64_t lowest_live(std::uint64_t thread_progress::*bound) const AREC_REQUIRES(mutex_);
  void encode_all(std::uint64_t bound, std::vector<std::byte>& out, bool finish)
      AREC_REQUIRES(mutex_);
  // A sink that encodes each sample into `out` and counts it in `added`.
  static off_cpu_tracker::sink encoder(const off_cpu_layout& layout, std::vector<std::byte>& out,
                                       totals& added);
  void count(const totals& added) AREC_REQUIRES(mutex_);

  const off_cpu_layout layout_;
  const std::size_t callchain_offset_;  // in a sampler SAMPLE's body
  const std::size_t id_offset_;
  base::mutex mutex_;
  off_cpu_tracker tracker_ AREC_GUARDED_BY(mutex_);
  std::vector<thread_progress> threads_ AREC_GUARDED_BY(mutex_);
  std::uint64_t newest_ AREC_GUARDED_BY(mutex_) = 0;  // the newest time scanned anywhere
  totals totals_ AREC_GUARDED_BY(mutex_);
  const model::machine* machine_;
  // Objects' CFI, opened at the first switch in them; libdw missing turns completion off.
  symbols::cfi_objects cfi_ AREC_GUARDED_BY(mutex_);
  bool completing_ AREC_GUARDED_BY(mutex_) = true;
  std::vector<std::uint64_t> completed_ AREC_GUARDED_BY(mutex_);
  // The side band as drained (not yet in time order): what the recording's model may not hold.
  model::machine recent_ AREC_GUARDED_BY(mutex_);
  std::vector<std::byte> side_band_ AREC_GUARDED_BY(mutex_);
  std::vector<cached_rule> rule_cache_ AREC_GUARDED_BY(mutex_);
  std::vector<pid_t> maps_read_ AREC_GUARDED_BY(mutex_);  // since the last new mapping
};

}  // namespace arec::record
