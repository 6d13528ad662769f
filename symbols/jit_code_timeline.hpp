// jit_code_timeline: one process's JIT code by place and time, from its jitdump's CODE_LOAD and
// CODE_MOVE records placed on the recording's clock, so that where a runtime reused an address
// a sample is named by the code that was there when it was taken, and a sample taken before
// any code there was loaded is named by none of it (docs/symbols.md, "JIT code: jitdumps").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perf_data/jitdumps_feature.hpp"
#include "symbols/jitdump_symbols.hpp"

namespace arec::symbols {

class jit_code_timeline {
 public:
  jit_code_timeline() = default;
  // Code loaded (or moved) at its time takes its range from then on; code there before it, and
  // a moved function's old range, end then (for the range they share only). `records`' times
  // are on the recording's clock; they are taken in time order whatever their order.
  explicit jit_code_timeline(std::vector<jitdump_code> records);

  // The name of the code at `address` at `time`; "" when no code the dump loaded was there
  // then (or, for a hostile dump whose code overlaps beyond any runtime's, when finding it
  // would take too long: unnamed, never misnamed).
  std::string_view name_at(std::uint64_t address, std::uint64_t time) const;
  // The source line of that code at `address` (its DEBUG_INFO record's), or nullopt.
  std::optional<jit_source_line> line_at(std::uint64_t address, std::uint64_t time) const;
  // The piece `name_at` found, to tell whether two lookups found one stretch of validity; null
  // when none.
  const void* piece_at(std::uint64_t address, std::uint64_t time) const;
  std::size_t pieces() const noexcept { return pieces_.size(); }

 private:
  // [start, end) held this code over [from, until) on the recording's clock.
  struct piece {
    std::uint64_t start, end, from, until;
    std::string name;
    std::shared_ptr<const jit_line_table> lines;  // by offset from code_start
    std::uint64_t code_start;                     // where the code begins: pieces are cut
  };
  const piece* find(std::uint64_t address, std::uint64_t time) const;

  std::vector<piece> pieces_;         // by start
  std::vector<std::uint64_t> reach_;  // the highest end of pieces_[0..i]
};

// False when the dump's times cannot be placed on the recording's clock: the CPU's counter
// (jitdump_times_are_arch), or neither of its file's pairs known.
bool jitdump_times_placeable(std::span<const std::byte> dump, const perf_data::file_clocks& clocks);

// The CODE_LOAD and CODE_MOVE records of `dump` (jitdump_code_records) with their times on the
// recording's clock, those the file's pairs cannot place left out. Precondition:
// jitdump_times_placeable(dump, clocks).
std::vector<jitdump_code> jitdump_code_in_recording_time(std::span<const std::byte> dump,
                                                         const perf_data::file_clocks& clocks);

// The timeline of `dump` (a captured jitdump) with its file's clock pairs; nullopt when its times
// cannot be placed on the recording's clock: the CPU's counter (jitdump_times_are_arch), or no
// pair known.
std::optional<jit_code_timeline> jitdump_timeline(std::span<const std::byte> dump,
                                                  const perf_data::file_clocks& clocks);

}  // namespace arec::symbols
