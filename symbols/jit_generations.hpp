// jit_generations: one process's jitdump as the perf maps of its code generations, for a file
// that names JIT code through one ELF per map (convert/jit_mappings) where perf inject writes one
// per function. A generation ends where the runtime loads (or moves) code over a range that code
// it loaded before held: it reused memory. Each generation's map holds every function loaded up
// to its end, so within it every address is named by the code there at the time (a function
// loaded later in the generation sits where no code of the dump was before). A file switches its
// mappings from one generation's ELF to the next at the time the next begins.
// docs/convert.md, "JIT code".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "perf_data/jitdumps_feature.hpp"
#include "symbols/jitdump_symbols.hpp"

namespace arec::symbols {

class jit_generations {
 public:
  // More would cost a growing ELF each (every function so far) for what is a rare event in a
  // runtime; past it the last generation takes the rest, named by the code written last.
  static constexpr std::size_t max_generations = 32;

  // The generations of `dump` (its bytes must outlive this), its times placed with `clocks`.
  // A dump whose times cannot be placed (jitdump_times_placeable) is one generation: where the
  // runtime reused memory, the code written last names it, as in a perf map.
  jit_generations(std::span<const std::byte> dump, const perf_data::file_clocks& clocks,
                  std::size_t limit = max_generations);

  std::size_t size() const noexcept { return from_.size(); }
  // When generation `index` begins, on the recording's clock; 0 for the first.
  std::uint64_t from(std::size_t index) const { return from_.at(index); }
  // The generation in force at `time` (on the recording's clock).
  std::size_t at(std::uint64_t time) const;
  // The perf-map text of generation `index`: every function loaded up to its end.
  std::string perf_map(std::size_t index) const;
  // The records of those functions (with their call frame information), in time order.
  std::span<const jitdump_code> functions(std::size_t index) const;
  // False when the dump's times could not be placed on the recording's clock.
  bool placed() const noexcept { return placed_; }
  // Reuses past `limit`, left in the last generation.
  std::size_t reuses_merged() const noexcept { return reuses_merged_; }

 private:
  std::vector<jitdump_code> records_;  // in time order
  std::vector<std::uint64_t> from_;    // per generation
  std::vector<std::size_t> end_;       // per generation: records_[0, end) are loaded by its end
  bool placed_ = true;
  std::size_t reuses_merged_ = 0;
};

}  // namespace arec::symbols
