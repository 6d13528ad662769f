// completed_chains: arec -g samples written with their frame-pointer chains completed from CFI
// (symbols/chain_completion), so perf report, perf script and hotspot show the caller of a
// frameless leaf or libc function. A sample keeps its small user-stack copy (STACK_USER without
// REGS_USER, which no reader unwinds); only its CALLCHAIN grows. Fed every record in time order
// (the side band keeps the tasks' maps). docs/convert.md, "Frame-pointer stacks completed".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "perf_data/feature_encoder.hpp"
#include "symbols/callchain_completer.hpp"

namespace arec::convert {

class completed_chains {
 public:
  // nullopt when no event records a frame-pointer chain with a stack copy.
  static std::optional<completed_chains> for_events(std::span<const perf_data::event_entry> events);

  // `record` itself, or a SAMPLE with its completed chain (valid until the next call).
  std::span<const std::byte> rewrite(std::span<const std::byte> record);

  std::uint64_t completed() const noexcept { return completer_->completed(); }
  std::uint64_t not_completed() const noexcept { return completer_->not_completed(); }
  std::uint64_t unverified() const noexcept { return completer_->unverified(); }
  bool libdw_missing() const noexcept { return completer_->libdw_missing(); }

 private:
  struct attr_layout {
    perf_event_attr attr{};
    std::vector<std::uint64_t> ids;
    bool completes = false;  // CALLCHAIN and STACK_USER without REGS_USER or READ
  };
  completed_chains(std::vector<attr_layout> attrs, long id_at);
  const attr_layout* attr_of(std::span<const std::byte> sample) const;

  std::vector<attr_layout> attrs_;
  long id_at_;  // where a SAMPLE keeps its id, from the record start; -1: one attr
  std::unique_ptr<symbols::callchain_completer> completer_;
  std::vector<std::uint64_t> chain_;
  std::vector<std::byte> buffer_;
};

}  // namespace arec::convert
