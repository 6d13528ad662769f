// joined_ranges: address ranges added one at a time, kept joined into disjoint ranges, and
// whether each new one overlaps those added before: where a JIT runtime loaded code over a
// range other code held (symbols/jit_generations, symbols/jit_eh_frame).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>

namespace arec::symbols {

class joined_ranges {
 public:
  // Adds [start, end) (start < end); true when part of it was in a range added before (ranges
  // that only touch it do not overlap it).
  bool add(std::uint64_t start, std::uint64_t end) {
    auto at = ranges_.upper_bound(start);
    bool overlaps = (at != ranges_.begin() && std::prev(at)->second > start) ||
                    (at != ranges_.end() && at->first < end);
    if (at != ranges_.begin() && std::prev(at)->second >= start) --at;
    while (at != ranges_.end() && at->first <= end) {  // joins every range it touches
      start = std::min(start, at->first);
      end = std::max(end, at->second);
      at = ranges_.erase(at);
    }
    ranges_.emplace_hint(at, start, end);
    return overlaps;
  }

 private:
  std::map<std::uint64_t, std::uint64_t> ranges_;  // start -> end
};

}  // namespace arec::symbols
