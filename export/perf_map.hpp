// perf_map: the JIT symbols of each process (symbols/perf_map_symbols), as export looks them up: the
// map the recording captured, else /tmp/perf-PID.map. perf report reads those maps for
// anonymous executable mappings; export does the same, so JIT frames are named in pprof and
// folded stacks.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symbols/perf_map_symbols.hpp"

namespace arec::exporting {

using symbols::perf_map_symbol;

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
