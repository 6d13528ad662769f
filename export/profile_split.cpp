#include "export/profile_split.hpp"

#include <algorithm>
#include <iterator>
#include <map>
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
    parts.push_back(with_samples(whole, std::vector<profile_sample>(std::make_move_iterator(from),
                                                                    std::make_move_iterator(to))));
    from = to;
  }
  return parts;
}

namespace {

// The string index of `text` in `p`, or -1.
std::int64_t string_index(const profile& p, std::string_view text) {
  auto found = std::find(p.strings.begin(), p.strings.end(), text);
  return found == p.strings.end() ? -1 : found - p.strings.begin();
}

// A sample's label `key`: its string (by index) or its number; nullopt when absent.
const sample_label* label_of(const profile_sample& sample, std::int64_t key) {
  for (const sample_label& label : sample.labels)
    if (label.key == key) return &label;
  return nullptr;
}

}  // namespace

std::vector<process_samples> group_by_process(profile& whole) {
  std::int64_t pid_key = string_index(whole, "pid"), comm_key = string_index(whole, "comm"),
               container_key = string_index(whole, "container_id");
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> group_of;  // (pid, comm)
  std::vector<process_samples> groups;
  for (profile_sample& sample : whole.samples) {
    const sample_label* pid = label_of(sample, pid_key);
    const sample_label* comm = label_of(sample, comm_key);
    auto [found, added] =
        group_of.try_emplace({pid ? pid->num : -1, comm ? comm->str : 0}, groups.size());
    if (added) {
      process_samples& group = groups.emplace_back();
      if (pid) group.labels.emplace_back("pid", std::to_string(pid->num));
      if (comm && comm->str != 0) group.labels.emplace_back("comm", whole.strings[comm->str]);
      if (const sample_label* container = label_of(sample, container_key);
          container && container->str != 0)
        group.labels.emplace_back("container_id", whole.strings[container->str]);
    }
    groups[found->second].samples.push_back(std::move(sample));
  }
  whole.samples.clear();
  return groups;
}

profile with_samples(const profile& tables, std::vector<profile_sample> samples) {
  profile part = tables;  // the tables (group_by_process and split_samples took the samples)
  part.samples = std::move(samples);
  keep_only_referenced(part);
  return part;
}

}  // namespace arec::exporting
