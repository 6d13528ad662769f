// perf_map_symbols: the symbols a JIT runtime writes for the code it generates, in perf's
// convention (/tmp/perf-PID.map: one "START SIZE NAME" line per function, hex without 0x), as
// `node --perf-basic-prof`, the JVM's perf-map-agent, .NET and others write them. Parsed here
// for every reader of a captured map: export names frames with it, convert turns it into ELF.
// A map is text its process (or whoever wrote the file) chose, so the table is compact (24
// bytes a function and its name) and bounded: docs/security.md, "JIT perf maps".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace arec::symbols {

struct perf_map_symbol {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  // Where its name is in the table's names: names are kept in written order, so a larger
  // offset is a later line (where code is reused, the later line is the code now).
  std::uint32_t name_at = 0;
  std::uint32_t name_size = 0;
};

class perf_map_table {
 public:
  // At most this many functions of one map are kept: the last ones written. Real maps hold
  // up to a few hundred thousand (docs/security.md says why this number).
  static constexpr std::size_t max_symbols = std::size_t{1} << 20;

  perf_map_table() = default;
  // Parses perf-map text; malformed lines are skipped, and of more than `max` lines only the
  // last `max` are read (the others are counted in left_out()).
  explicit perf_map_table(std::string_view text, std::size_t max = max_symbols);

  // The symbol at `address`: of those containing it, the one written last; nullptr for none.
  const perf_map_symbol* at(std::uint64_t address) const;
  std::string_view name(const perf_map_symbol& symbol) const {
    return std::string_view{names_}.substr(symbol.name_at, symbol.name_size);
  }
  // Sorted by start, then in written order.
  std::span<const perf_map_symbol> symbols() const noexcept { return symbols_; }
  std::size_t size() const noexcept { return symbols_.size(); }
  bool empty() const noexcept { return symbols_.empty(); }
  // Lines of the text not read because the map has more than `max`.
  std::size_t left_out() const noexcept { return left_out_; }

 private:
  std::string names_;
  std::vector<perf_map_symbol> symbols_;
  std::size_t left_out_ = 0;
};

}  // namespace arec::symbols
