// sample_decoder: the fields of a SAMPLE record that a profile needs, read by the sample_type of
// the attr the sample's id names. Layout: docs/perf-data-format.md, "SAMPLE layout".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "perf_data/feature_encoder.hpp"

namespace arec::exporting {

// PERF_SAMPLE_REGS_USER: the user registers at the sample, those of the attr's
// sample_regs_user in its bit order (bit i set: perf register i is in `values`).
struct user_registers {
  std::uint64_t abi = 0;   // PERF_SAMPLE_REGS_ABI_*: 0 when there are none (a kernel thread)
  std::uint64_t mask = 0;  // the attr's sample_regs_user
  std::span<const std::uint64_t> values;

  // Perf register `index` (PERF_REG_X86_SP...), or nullopt when not recorded.
  std::optional<std::uint64_t> get(unsigned index) const noexcept;
};

struct decoded_sample {
  std::size_t event = 0;   // index of the attr in the file's order
  std::uint16_t misc = 0;  // the record's misc: PERF_RECORD_MISC_CPUMODE_MASK gives the mode
  std::uint64_t ip = 0;
  std::int32_t pid = -1, tid = -1;
  std::uint64_t time = 0;
  std::uint32_t cpu = 0;
  bool has_cpu = false;
  std::uint64_t period = 1;
  std::uint64_t cgroup = 0;
  bool has_cgroup = false;
  std::span<const std::uint64_t> callchain;  // as recorded, PERF_CONTEXT_* markers included
  user_registers regs_user;                  // PERF_SAMPLE_REGS_USER
  // PERF_SAMPLE_STACK_USER: the copy of the user stack from the sampled SP up, cut to the
  // bytes the kernel filled (dyn_size); empty when not recorded or not copied.
  std::span<const std::byte> stack_user;
  bool has_stack_user = false;  // the sample_type has it with REGS_USER: a --call-graph dwarf sample
  // STACK_USER without REGS_USER: arec -g's small copy beside a frame-pointer chain, for
  // completing it (symbols/chain_completion).
  bool fp_snapshot = false;
};

class sample_decoder {
 public:
  // `events` are the file's attrs in file order with their ids.
  explicit sample_decoder(std::span<const perf_data::event_entry> events);

  // The fields of `record` (a whole SAMPLE record, header included), or nullopt when it is
  // too short for its sample_type. The callchain and register spans point into `record`, or
  // into buffers of the decoder's (valid until the next decode) when `record` is not 8-byte
  // aligned; the stack span points into `record`. Allocates nothing once those buffers have
  // grown to the longest chain.
  std::optional<decoded_sample> decode(std::span<const std::byte> record) const;

  std::size_t event_count() const noexcept { return attrs_.size(); }

 private:
  std::size_t attr_of(std::span<const std::byte> record) const;

  std::vector<perf_event_attr> attrs_;
  std::vector<std::pair<std::uint64_t, std::size_t>> ids_;  // (id, attr index), sorted
  mutable std::vector<std::uint64_t> unaligned_;            // see decode()
  mutable std::vector<std::uint64_t> unaligned_regs_;       // see decode()
  int id_offset_ = -1;  // of the id in a SAMPLE, from the record start; -1: one attr only
};

}  // namespace arec::exporting
