#include "export/unnamed_frames.hpp"

#include <set>
#include <string_view>
#include <vector>

namespace arec::exporting {

unnamed_frames count_unnamed(const profile& result) {
  unnamed_frames out;
  // The columns that count samples ("EVENT_samples"), one per event.
  std::vector<std::size_t> counts;
  for (std::size_t i = 0; i < result.sample_types.size(); ++i) {
    std::string_view type = result.strings[static_cast<std::size_t>(result.sample_types[i].type)];
    if (type.ends_with("_samples")) counts.push_back(i);
  }
  std::set<std::uint64_t> mappings;
  for (const profile_location& location : result.locations) {
    if (location.function_id != 0) continue;
    ++out.addresses;
    if (location.mapping_id == 0)
      ++out.unmapped;
    else
      mappings.insert(location.mapping_id);
  }
  std::set<std::int64_t> files;  // mapping ids need not be positions: looked up
  for (const profile_mapping& mapping : result.mappings)
    if (mappings.count(mapping.id)) files.insert(mapping.filename);
  out.files = files.size();
  for (const profile_sample& sample : result.samples) {
    std::uint64_t samples = 0;
    for (std::size_t column : counts) samples += static_cast<std::uint64_t>(sample.values[column]);
    out.all_samples += samples;
    for (std::uint64_t id : sample.location_ids)
      if (result.locations[id - 1].function_id == 0) {
        out.samples += samples;
        break;
      }
  }
  return out;
}

}  // namespace arec::exporting
