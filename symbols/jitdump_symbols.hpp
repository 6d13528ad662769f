// jitdump_symbols: the functions a captured jitdump (host/jitdump) names, as the perf-map text
// every reader of JIT names already takes (symbols/perf_map_symbols): one "START SIZE NAME"
// line per CODE_LOAD, and one per CODE_MOVE at the code's new place, in the dump's order, so
// that where a runtime reused memory the record written last names the code, as in a perf map.
// A dump is its process's own text, as a perf map is: the same bounds apply to it.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace arec::symbols {

// The perf-map lines of the dump's CODE_LOAD and CODE_MOVE records (the others carry no name);
// a dump cut short or malformed gives the lines of its whole records before that.
std::string jitdump_as_perf_map(std::span<const std::byte> dump);

}  // namespace arec::symbols
