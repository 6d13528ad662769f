#include "export/profile_subset.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace arec::exporting {
namespace {

// Old string index -> new, in order of first use.
class string_renumbering {
 public:
  explicit string_renumbering(std::vector<std::string>& strings)
      : old_(std::move(strings)), new_index_(old_.size(), -1) {
    kept_.push_back("");
    if (!new_index_.empty()) new_index_[0] = 0;
  }
  void renumber(std::int64_t& index) {
    auto old = static_cast<std::size_t>(index);
    if (new_index_[old] < 0) {
      new_index_[old] = static_cast<std::int64_t>(kept_.size());
      kept_.push_back(std::move(old_[old]));
    }
    index = new_index_[old];
  }
  std::vector<std::string> take() { return std::move(kept_); }

 private:
  std::vector<std::string> old_;
  std::vector<std::int64_t> new_index_;
  std::vector<std::string> kept_;
};

}  // namespace

void keep_only_referenced(profile& p) {
  std::vector<std::uint64_t> new_location(p.locations.size() + 1, 0);
  std::vector<profile_location> locations;
  for (profile_sample& sample : p.samples)
    for (std::uint64_t& id : sample.location_ids) {
      if (new_location[id] == 0) {
        locations.push_back(p.locations[id - 1]);
        new_location[id] = locations.size();
        locations.back().id = locations.size();
      }
      id = new_location[id];
    }

  std::vector<std::uint64_t> new_function(p.functions.size() + 1, 0);
  std::vector<profile_function> functions;
  std::vector<bool> mapping_used(p.mappings.size() + 1, false);  // by old id (1..n)
  for (profile_location& location : locations) {
    mapping_used[location.mapping_id] = true;
    auto renumber = [&](std::uint64_t& id) {
      if (id == 0) return;
      if (new_function[id] == 0) {
        functions.push_back(p.functions[id - 1]);
        new_function[id] = functions.size();
        functions.back().id = functions.size();
      }
      id = new_function[id];
    };
    renumber(location.function_id);
    for (std::uint64_t& inlined : location.inlined_ids) renumber(inlined);
  }

  std::vector<std::uint64_t> new_mapping(p.mappings.size() + 1, 0);
  std::vector<profile_mapping> mappings;
  for (const profile_mapping& mapping : p.mappings) {
    if (!mapping_used[mapping.id]) continue;
    mappings.push_back(mapping);
    new_mapping[mapping.id] = mappings.size();
    mappings.back().id = mappings.size();
  }
  for (profile_location& location : locations)
    location.mapping_id = new_mapping[location.mapping_id];

  string_renumbering strings(p.strings);
  for (value_type& type : p.sample_types) {
    strings.renumber(type.type);
    strings.renumber(type.unit);
  }
  for (profile_sample& sample : p.samples)
    for (sample_label& label : sample.labels) {
      strings.renumber(label.key);
      strings.renumber(label.str);
    }
  for (profile_mapping& mapping : mappings) {
    strings.renumber(mapping.filename);
    strings.renumber(mapping.build_id);
  }
  for (profile_function& function : functions) {
    strings.renumber(function.name);
    strings.renumber(function.filename);
  }
  strings.renumber(p.period_type.type);
  strings.renumber(p.period_type.unit);
  strings.renumber(p.default_sample_type);

  p.locations = std::move(locations);
  p.functions = std::move(functions);
  p.mappings = std::move(mappings);
  p.strings = strings.take();
}

}  // namespace arec::exporting
