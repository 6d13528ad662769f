// unnamed_frames: what a finished profile leaves unnamed (locations without a function: no
// symbol, no FDE, no perf-map line), counted for the export's summary, so that "right, or say
// so" holds: a frame is never charged to a wrong function, and the ones left out are counted.
#pragma once

#include <cstddef>
#include <cstdint>

#include "export/profile.hpp"

namespace arec::exporting {

struct unnamed_frames {
  std::uint64_t samples = 0;  // samples with at least one unnamed frame (every event's)
  std::uint64_t all_samples = 0;
  std::size_t addresses = 0;  // distinct unnamed locations
  std::size_t files = 0;      // the mapped files (or anonymous mappings) they are in
  std::size_t unmapped = 0;   // of the addresses, those no mapping covers (a frame-pointer
                              // chain through code without frame pointers gives such values)
};

unnamed_frames count_unnamed(const profile& result);

}  // namespace arec::exporting
