#include "symbols/jit_generations.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>

#include "symbols/jit_code_timeline.hpp"
#include "symbols/joined_ranges.hpp"

namespace arec::symbols {

jit_generations::jit_generations(std::span<const std::byte> dump,
                                 const perf_data::file_clocks& clocks, std::size_t limit)
    : placed_(jitdump_times_placeable(dump, clocks)) {
  from_.push_back(0);
  if (!placed_) {
    records_ = jitdump_code_records(dump);
    end_.push_back(records_.size());
    return;
  }
  records_ = jitdump_code_in_recording_time(dump, clocks);
  std::ranges::stable_sort(records_, {}, &jitdump_code::time);
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  joined_ranges loaded;  // every range code was loaded at so far
  for (std::size_t i = 0; i < records_.size(); ++i) {
    const jitdump_code& code = records_[i];
    if (code.size == 0 || code.start > top - code.size) continue;  // no range: names nothing
    if (!loaded.add(code.start, code.start + code.size) || i == 0) continue;
    if (from_.size() == limit) {
      ++reuses_merged_;
      continue;
    }
    end_.push_back(i);
    from_.push_back(code.time);
  }
  end_.push_back(records_.size());
}

std::size_t jit_generations::at(std::uint64_t time) const {
  // from_ rises, and the first generation begins at 0.
  auto after = std::ranges::upper_bound(from_, time);
  return after == from_.begin() ? 0 : static_cast<std::size_t>(after - from_.begin()) - 1;
}

std::string jit_generations::perf_map(std::size_t index) const {
  return perf_map_of(functions(index));
}

std::span<const jitdump_code> jit_generations::functions(std::size_t index) const {
  return std::span{records_}.first(end_.at(index));
}

}  // namespace arec::symbols
