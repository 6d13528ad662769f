// perf_map_symbols: the symbols a JIT runtime writes for the code it generates, in perf's
// convention (/tmp/perf-PID.map: one "START SIZE NAME" line per function, hex without 0x), as
// `node --perf-basic-prof`, the JVM's perf-map-agent, .NET and others write them. Parsed here
// for every reader of a captured map: export names frames with it, convert turns it into ELF.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace arec::symbols {

struct perf_map_symbol {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::size_t line = 0;  // written order: where code is reused, the later line is the code now
  std::string name;
};

// Parses perf-map text into symbols sorted by start; malformed lines are skipped.
std::vector<perf_map_symbol> parse_perf_map(std::string_view text);

// The symbol of `symbols` (parse_perf_map's) at `address`: of those containing it, the one
// written last; nullptr for none.
const perf_map_symbol* perf_map_symbol_at(const std::vector<perf_map_symbol>& symbols,
                                          std::uint64_t address);

}  // namespace arec::symbols
