// folded_writer: a profile as collapsed stacks, the input of flamegraph.pl and speedscope: one
// line "comm;root;...;leaf COUNT" per distinct stack, sorted, counting samples.
#pragma once

#include <string>

#include "export/profile.hpp"

namespace arec::exporting {

// Frames without a name are "[unknown]", as perf script prints them. COUNT sums the sample
// types named "*_samples" (the sample counts of every event). In a name (a comm, a symbol, a
// perf-map name) ';' becomes ':', control characters (a line end) '?', and bytes that are not
// UTF-8 U+FFFD, so that no name adds a frame, a line or a count.
std::string folded_text(const profile& source);

}  // namespace arec::exporting
