#include "export/profile_split.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "export/profile_subset.hpp"

namespace arec::exporting {

std::uint64_t truncate_stacks(profile& p, std::size_t max_depth) {
  if (max_depth == 0) return 0;
  std::uint64_t cut = 0;
  for (profile_sample& sample : p.samples) {
    if (sample.location_ids.size() <= max_depth) continue;
    sample.location_ids.resize(max_depth);  // leaf first: the outermost callers go
    ++cut;
  }
  if (cut != 0) keep_only_referenced(p);  // callers no sample reaches any more
  return cut;
}

std::vector<profile> split_samples(profile whole, std::size_t max_samples) {
  std::vector<profile> parts;
  if (max_samples == 0 || whole.samples.size() <= max_samples) {
    parts.push_back(std::move(whole));
    return parts;
  }
  std::vector<profile_sample> samples = std::move(whole.samples);
  whole.samples.clear();
  for (auto from = samples.begin(); from != samples.end();) {
    auto to = from + static_cast<std::ptrdiff_t>(
                         std::min<std::size_t>(max_samples, std::distance(from, samples.end())));
    profile part = whole;  // the tables; keep_only_referenced keeps this part's own
    part.samples.assign(std::make_move_iterator(from), std::make_move_iterator(to));
    keep_only_referenced(part);
    parts.push_back(std::move(part));
    from = to;
  }
  return parts;
}

}  // namespace arec::exporting
