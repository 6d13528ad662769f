// perf_map: the symbols a JIT runtime writes for the code it generates, in perf's convention
// (/tmp/perf-PID.map: one "START SIZE NAME" line per function, hex without 0x), as `node
// --perf-basic-prof`, the JVM's perf-map-agent, .NET and others write them. perf report reads
// them for anonymous executable mappings; export does the same, so JIT frames are named in
// pprof and folded stacks.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace arec::exporting {

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

class perf_maps {
 public:
  // Maps are read from `dir` ("/tmp"); an empty dir reads none.
  explicit perf_maps(std::string dir) : dir_(std::move(dir)) {}

  // The function of process `pid` at `address`, "" when its map has none (or it has no map).
  // A process's map is the one captured for it (use_captured), else the one in `dir` read once,
  // at its first question; one over max_bytes is not read.
  std::string_view function_at(pid_t pid, std::uint64_t address);
  // `text` is process `pid`'s map, as the recording captured it (it replaces what was known).
  void use_captured(pid_t pid, std::string_view text);

  static constexpr std::size_t max_bytes = std::size_t{256} << 20;

 private:
  const std::string dir_;
  std::unordered_map<pid_t, std::vector<perf_map_symbol>> by_pid_;
};

}  // namespace arec::exporting
