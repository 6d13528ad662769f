#include "record/offcpu/off_cpu_recorder.hpp"

#include <fcntl.h>
#include <linux/limits.h>
#include <linux/perf_event.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <stdexcept>
#include <utility>

#include "host/proc_maps.hpp"
#include "io/small_file.hpp"
#include "model/side_band.hpp"
#include "perf_data/perf_abi.hpp"
#include "perf_data/sample_layout.hpp"
#include "base/unaligned.hpp"

namespace arec::record {
namespace {

std::uint64_t read_u64(const ring_chunk& chunk, std::size_t offset) {
  return chunk.load_aligned<std::uint64_t>(offset);
}

// A (u32 pid, u32 tid) pair as the kernel writes it.
std::pair<pid_t, pid_t> read_pid_tid(const ring_chunk& chunk, std::size_t offset) {
  std::uint64_t both = read_u64(chunk, offset);
  return {static_cast<pid_t>(both & 0xffffffffu), static_cast<pid_t>(both >> 32)};
}

void put_u64(std::vector<std::byte>& out, std::uint64_t value) {
  const auto* bytes = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof value);
}

}  // namespace

off_cpu_recorder::off_cpu_recorder(off_cpu_layout layout, std::size_t streaming_threads,
                                   const model::machine* machine)
    : layout_(std::move(layout)),
      callchain_offset_(perf_data::sample_callchain_offset(layout_.sampler_sample_type)),
      id_offset_(perf_data::sample_id_offset(layout_.sampler_sample_type)),
      tracker_(layout_.threshold_ns),
      threads_(streaming_threads),
      machine_(machine),
      cfi_([](const model::map& where) { return where.object->name(); }),
      rule_cache_(machine ? rule_cache_entries : 0) {
  if (layout_.sampler_sample_type & PERF_SAMPLE_READ)
    throw std::invalid_argument("off_cpu_recorder: a sampler with READ has no fixed callchain");
}

void off_cpu_recorder::scan(const ring_chunk& chunk, ring_state& ring) {
  base::exclusive_lock lock(mutex_);
  std::size_t size = chunk.size();
  std::size_t offset = 0;
  while (offset + sizeof(perf_data::record_header) <= size) {
    auto header = chunk.load_aligned<perf_data::record_header>(offset);
    if (header.size < sizeof header || offset + header.size > size) break;
    std::size_t body = offset + sizeof header, end = offset + header.size;
    switch (header.type) {
      case PERF_RECORD_SAMPLE: {
        std::uint64_t id = read_u64(chunk, body + id_offset_);
        if (std::binary_search(layout_.sampler_ids.begin(), layout_.sampler_ids.end(), id))
          scan_sample(chunk, body, end, ring);
        break;
      }
      case PERF_RECORD_SWITCH:
      case PERF_RECORD_SWITCH_CPU_WIDE:
        scan_switch(chunk, end, header.misc, ring);
        break;
      case PERF_RECORD_MMAP:
      case PERF_RECORD_MMAP2:
      case PERF_RECORD_FORK:
      case PERF_RECORD_COMM:
        note_side_band(chunk, offset, header.size);
        break;
      case PERF_RECORD_EXIT: {  // u32 pid, ppid, tid, ptid; u64 time; the sample_id trailer
        pid_t tid = read_pid_tid(chunk, body + 8).first;
        // Readers order the EXIT by its trailer's time, which can be microseconds before the
        // body's (seen: 1.3 us): the earlier one, so the thread's sums come before it.
        std::uint64_t time = std::min(read_u64(chunk, body + 16),
                                      read_u64(chunk, end - layout_.trailer_time_from_end));
        newest_ = std::max(newest_, time);
        tracker_.exited(tid, time);
        note_side_band(chunk, offset, header.size);  // the recent model forgets it
        break;
      }
      default:
        break;
    }
    offset = end;
  }
}

// The switch sampler's sample: the stack the thread leaves, kept for the SWITCH out record
// that follows it in this ring. Its chain holds the user frames only (exclude_callchain_kernel):
// PERF_CONTEXT_USER, then the frames; a kernel thread's is empty.
void off_cpu_recorder::scan_sample(const ring_chunk& chunk, std::size_t body, std::size_t end,
                                   ring_state& ring) {
  std::size_t tid_at = body + perf_data::sample_tid_offset(layout_.sampler_sample_type);
  auto [pid, tid] = read_pid_tid(chunk, tid_at);
  std::size_t chain = body + callchain_offset_;
  std::uint64_t count = read_u64(chunk, chain);
  ring.tid = -1;
  ring.stack.clear();
  if (count > (end - chain) / 8 - 1) return;  // malformed
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t frame = read_u64(chunk, chain + 8 + 8 * i);
    if (frame >= PERF_CONTEXT_MAX) continue;  // a context marker
    if (frame == 0) break;  // the end of what the frame pointers gave, as perf trims it
    if (ring.stack.size() < off_cpu_tracker::max_stack_depth) ring.stack.push_back(frame);
  }
  // A kernel thread (or a task past exit_mm) has no user stack: it is sampled, with nothing
  // to charge, and its switch-out is left out without being counted as unattributed.
  ring.pid = pid;
  ring.tid = tid;
  ring.incomplete = false;
  copy_user_stack(chunk, chain + 8 + 8 * count, end, ring);
  if (!ring.stack.empty()) complete_stack(ring);
}

// After the chain: REGS_USER (u64 abi, then the registers unless abi is 0) with --user-regs,
// then STACK_USER: u64 size, the bytes, u64 dyn_size (the bytes filled).
void off_cpu_recorder::copy_user_stack(const ring_chunk& chunk, std::size_t at, std::size_t end,
                                       ring_state& ring) const {
  ring.stack_copy_bytes = 0;
  ring.user_state.clear();
  if (!(layout_.sampler_sample_type & PERF_SAMPLE_STACK_USER)) return;
  std::size_t state_at = at;
  if (layout_.sampler_sample_type & PERF_SAMPLE_REGS_USER) {
    if (at + 8 > end) return;
    if (read_u64(chunk, at) != 0) at += 8 * static_cast<std::size_t>(std::popcount(layout_.sampler_regs_user));
    at += 8;
  }
  if (at + 8 > end) return;
  std::uint64_t size = read_u64(chunk, at);
  if (size == 0 || size > end - at - 8 || end - at - 8 - size < 8) return;
  if (keeps_user_state(layout_)) {  // capacity reused: the sampler's stack size, once per ring
    ring.user_state.resize(at + 16 + size - state_at);
    chunk.copy_out(state_at, ring.user_state);
  }
  std::uint64_t filled = std::min(size, read_u64(chunk, at + 8 + size));
  if (ring.stack_copy.size() < filled) ring.stack_copy.resize(size);  // once per ring
  ring.stack_copy_bytes = filled;
  chunk.copy_out(at + 8, std::span(ring.stack_copy).first(filled));
}

// The recording's model gets a ring's mappings up to a round later (in time order): a workload's
// libraries would be unknown for its first switches. Mappings and tasks are also applied here,
// in drain order, to a model of the recorder's own, looked at first.
void off_cpu_recorder::note_side_band(const ring_chunk& chunk, std::size_t offset,
                                      std::size_t size) {
  if (!machine_ || !(layout_.sampler_sample_type & PERF_SAMPLE_STACK_USER)) return;
  side_band_.resize(size);  // the largest side-band record so far: capacity reused
  chunk.copy_out(offset, side_band_);
  model::apply_side_band(recent_, side_band_);
  // A new executable mapping (exec, dlopen) may replace what a cached rule was read from.
  std::uint32_t type = side_band_.size() >= 4 ? base::load<std::uint32_t>(side_band_, 0) : 0;
  if (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2) {
    std::fill(rule_cache_.begin(), rule_cache_.end(), cached_rule{});
    maps_read_.clear();
  }
}

namespace {

// One process's rules: the recorder's recent model first, then the recording's, each task
// looked up only when the recorder's cache misses (most switches hit it: a blocking call is
// made from few places).
class switch_rules final : public symbols::frame_rule_source {
 public:
  using cached_rule = off_cpu_recorder::cached_rule;
  switch_rules(pid_t pid, pid_t tid, const model::machine& recent,
               const model::machine& recording, symbols::cfi_objects& cfi,
               std::vector<cached_rule>& cache)
      : pid_(pid), tid_(tid), recent_(recent), recording_(recording), cfi_(cfi), cache_(cache) {}

  symbols::frame_rule rule_for(std::uint64_t pc) override {
    cached_rule& slot = cache_[(pc * 0x9e3779b97f4a7c15ull ^ static_cast<std::uint64_t>(pid_)) %
                               cache_.size()];
    if (slot.pid == pid_ && slot.pc == pc) return slot.rule;
    symbols::frame_rule rule = look_up(pc);
    if (first_ || second_) slot = {pid_, pc, rule};  // not for a task neither model knows yet
    return rule;
  }

 private:
  symbols::frame_rule look_up(std::uint64_t pc) {
    if (!looked_up_) {
      looked_up_ = true;
      if (std::shared_ptr<model::thread> task = recent_.tasks().find(tid_))
        first_.emplace(cfi_, *(first_space_ = task->address_space()));
      if (std::shared_ptr<model::thread> task = recording_.tasks().find(tid_))
        second_.emplace(cfi_, *(second_space_ = task->address_space()));
    }
    symbols::frame_rule rule = first_ ? first_->rule_for(pc) : symbols::frame_rule{};
    if (rule.cfa_base == symbols::frame_rule::base::none && second_) rule = second_->rule_for(pc);
    return rule;
  }

  pid_t pid_, tid_;
  const model::machine& recent_;
  const model::machine& recording_;
  symbols::cfi_objects& cfi_;
  std::vector<cached_rule>& cache_;
  bool looked_up_ = false;
  std::shared_ptr<model::maps> first_space_, second_space_;  // alive while their rules are used
  std::optional<symbols::process_rules> first_, second_;
};

}  // namespace

// The frames the frame pointers skipped (a libc wrapper's caller), put back from CFI.
void off_cpu_recorder::complete_stack(ring_state& ring) {
  if (!machine_ || !completing_ || ring.stack_copy_bytes == 0) return;
  std::span<const std::byte> copy = std::span(ring.stack_copy).first(ring.stack_copy_bytes);
  symbols::completion outcome = symbols::completion::no_cfi;
  try {
    for (int attempt = 0; attempt < 2; ++attempt) {
      switch_rules rules(ring.pid, ring.tid, recent_, *machine_, cfi_, rule_cache_);
      outcome = symbols::complete_user_chain(ring.stack, copy, rules, completed_);
      if (!symbols::not_completed(outcome) || !read_maps(ring.pid, ring.tid)) break;
    }
  } catch (const std::runtime_error&) {  // libdw missing: stacks stay as sampled
    completing_ = false;
  }
  ring.incomplete = symbols::not_completed(outcome);
  if (ring.incomplete) return;
  if (completed_.size() > off_cpu_tracker::max_stack_depth)
    completed_.resize(off_cpu_tracker::max_stack_depth);
  ring.stack.assign(completed_.begin(), completed_.end());
}

// A switch-out whose stack could not be completed may have come before the MMAP2 records that
// map its libraries, still in another cpu's ring: the process's executable mappings are read
// from /proc into the recent model, once per process until the next new mapping.
bool off_cpu_recorder::read_maps(pid_t pid, pid_t tid) {
  if (pid <= 0 || std::find(maps_read_.begin(), maps_read_.end(), pid) != maps_read_.end())
    return false;
  maps_read_.push_back(pid);
  io::small_file file =
      io::small_file::open_at(AT_FDCWD, ("/proc/" + std::to_string(pid) + "/maps").c_str());
  if (!file) return false;  // gone
  std::array<char, PATH_MAX + 128> buffer;
  host::maps_reader reader{file, buffer};
  recent_.find_or_add_thread(pid, tid);
  while (std::optional<host::maps_entry> entry = reader.next()) {
    if (!(entry->prot & PROT_EXEC) || entry->path.empty() || entry->path_truncated) continue;
    recent_.on_mmap({.pid = pid, .tid = tid, .start = entry->start,
                     .len = entry->end - entry->start, .pgoff = entry->pgoff, .prot = entry->prot,
                     .flags = static_cast<std::uint32_t>(entry->shared ? MAP_SHARED : MAP_PRIVATE),
                     .id = {}, .name = entry->path});
  }
  std::fill(rule_cache_.begin(), rule_cache_.end(), cached_rule{});  // "no rule" answers
  return true;
}

void off_cpu_recorder::scan_switch(const ring_chunk& chunk, std::size_t end, std::uint16_t misc,
                                   ring_state& ring) {
  std::size_t time_at = end - layout_.trailer_time_from_end;
  std::uint64_t time = read_u64(chunk, time_at);
  auto [pid, tid] = read_pid_tid(chunk, time_at - 8);
  newest_ = std::max(newest_, time);
  if (tid <= 0) return;  // the idle task
  if (!(misc & PERF_RECORD_MISC_SWITCH_OUT)) {
    tracker_.switched_in(tid, time);
    return;
  }
  bool preempted = misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
  bool sampled = ring.tid == tid;
  if (!preempted && !sampled && pid > 0) ++totals_.unattributed;
  bool charged = !preempted && sampled && !ring.stack.empty() && pid > 0;
  if (charged && ring.incomplete) ++totals_.incomplete;
  tracker_.switched_out(
      pid, tid, time, charged,
      charged ? std::span<const std::uint64_t>(ring.stack) : std::span<const std::uint64_t>(),
      charged ? std::span<const std::byte>(ring.user_state) : std::span<const std::byte>());
  ring.tid = -1;
}

void off_cpu_recorder::round_started(std::size_t thread) {
  base::exclusive_lock lock(mutex_);
  // A record older than the newest one any thread has scanned was in its ring before this
  // round began, so the round drains it, on this thread's rings too (the FINISHED_ROUND rule).
  threads_[thread].round_bound = newest_;
}

void off_cpu_recorder::round_finished(std::size_t thread, std::vector<std::byte>& out) {
  base::exclusive_lock lock(mutex_);
  threads_[thread].drained_until = threads_[thread].round_bound;
  encode_all(settled_bound(), out, false);
}

void off_cpu_recorder::thread_cut(std::size_t thread) {
  base::exclusive_lock lock(mutex_);
  threads_[thread].cut_bound = newest_;
}

void off_cpu_recorder::cut(std::vector<std::byte>& out) {
  base::exclusive_lock lock(mutex_);
  std::uint64_t bound = lowest_live(&thread_progress::cut_bound);
  if (bound == std::numeric_limits<std::uint64_t>::max()) bound = newest_;
  totals added;
  off_cpu_tracker::sink encode_one = encoder(layout_, out, added);
  tracker_.settle(bound, encode_one);
  tracker_.take_sums(bound, encode_one);
  count(added);
}

bool off_cpu_recorder::thread_ended(std::size_t thread, std::vector<std::byte>& out) {
  base::exclusive_lock lock(mutex_);
  threads_[thread].ended = true;
  if (!std::all_of(threads_.begin(), threads_.end(),
                   [](const thread_progress& one) { return one.ended; }))
    return false;
  encode_all(newest_, out, true);
  return true;
}

off_cpu_recorder::totals off_cpu_recorder::counted() {
  base::exclusive_lock lock(mutex_);
  return totals_;
}

off_cpu_tracker::sink off_cpu_recorder::encoder(const off_cpu_layout& layout,
                                                std::vector<std::byte>& out, totals& added) {
  return [&layout, &out, &added](const off_cpu_sample& sample) {
    encode(layout, sample, out);
    ++added.samples;
    added.blocked_ns += sample.period_ns;
  };
}

void off_cpu_recorder::count(const totals& added) {
  totals_.samples += added.samples;
  totals_.blocked_ns += added.blocked_ns;
}

// Every thread's rings are drained up to its round's bound; an ended thread holds nothing back.
std::uint64_t off_cpu_recorder::settled_bound() const {
  return lowest_live(&thread_progress::drained_until);
}

// The lowest `bound` of the threads still draining; an ended thread holds nothing back.
std::uint64_t off_cpu_recorder::lowest_live(std::uint64_t thread_progress::*bound) const {
  std::uint64_t lowest = std::numeric_limits<std::uint64_t>::max();
  for (const thread_progress& thread : threads_)
    if (!thread.ended) lowest = std::min(lowest, thread.*bound);
  return lowest;
}

void off_cpu_recorder::encode_all(std::uint64_t bound, std::vector<std::byte>& out, bool finish) {
  totals added;
  off_cpu_tracker::sink encode_one = encoder(layout_, out, added);
  if (finish)
    tracker_.finish(bound, encode_one);
  else
    tracker_.settle(bound, encode_one);
  count(added);
}

void off_cpu_recorder::encode(const off_cpu_layout& layout, const off_cpu_sample& sample,
                              std::vector<std::byte>& out) {
  std::uint64_t type = layout.output_sample_type;
  std::size_t start = out.size();
  put_u64(out, 0);  // the header, filled in below
  auto field = [&](std::uint64_t bit, std::uint64_t value) {
    if (type & bit) put_u64(out, value);
  };
  field(PERF_SAMPLE_IDENTIFIER, layout.output_id);
  field(PERF_SAMPLE_IP, sample.stack.empty() ? 0 : sample.stack[0]);
  field(PERF_SAMPLE_TID, static_cast<std::uint32_t>(sample.pid) |
                             static_cast<std::uint64_t>(static_cast<std::uint32_t>(sample.tid))
                                 << 32);
  field(PERF_SAMPLE_TIME, sample.time);
  field(PERF_SAMPLE_ADDR, 0);
  field(PERF_SAMPLE_ID, layout.output_id);
  field(PERF_SAMPLE_STREAM_ID, layout.output_id);
  field(PERF_SAMPLE_CPU, 0);
  field(PERF_SAMPLE_PERIOD, sample.period_ns);
  bool dwarf = (type & PERF_SAMPLE_STACK_USER) != 0;
  if (type & PERF_SAMPLE_CALLCHAIN) {
    if (dwarf) {
      put_u64(out, 0);  // the user frames are unwound from the registers and stack, as perf's
    } else {
      put_u64(out, sample.stack.size() + 1);
      put_u64(out, PERF_CONTEXT_USER);
      for (std::uint64_t frame : sample.stack) put_u64(out, frame);
    }
  }
  if (type & PERF_SAMPLE_RAW) put_u64(out, 4);  // u32 size 4, four zero bytes: 8-aligned
  // A record's size is 16 bits: a stack copy that would not fit is left out (size 0).
  if (dwarf && !sample.user_state.empty() &&
      out.size() - start + sample.user_state.size() + 64 <= 0xffff) {
    out.insert(out.end(), sample.user_state.begin(), sample.user_state.end());
  } else {
    field(PERF_SAMPLE_REGS_USER, 0);  // abi: none
    field(PERF_SAMPLE_STACK_USER, 0);  // size 0: no data, no dyn_size
  }
  field(PERF_SAMPLE_WEIGHT, 0);
  field(PERF_SAMPLE_DATA_SRC, 0);
  field(PERF_SAMPLE_TRANSACTION, 0);
  field(PERF_SAMPLE_REGS_INTR, 0);
  field(PERF_SAMPLE_PHYS_ADDR, 0);
  field(PERF_SAMPLE_CGROUP, 0);
  field(PERF_SAMPLE_DATA_PAGE_SIZE, 0);
  field(PERF_SAMPLE_CODE_PAGE_SIZE, 0);
  field(PERF_SAMPLE_WEIGHT_STRUCT, 0);
  perf_data::record_header header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
                                  static_cast<std::uint16_t>(out.size() - start)};
  std::memcpy(out.data() + start, &header, sizeof header);
}

}  // namespace arec::record
