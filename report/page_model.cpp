#include "report/page_model.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace arec::report {
namespace {

// Interns names into the model's string table.
class string_table {
 public:
  explicit string_table(std::vector<std::string>& strings) : strings_(strings) {}
  std::uint32_t id(std::string_view text) {
    auto found = ids_.find(std::string(text));
    if (found != ids_.end()) return found->second;
    auto id = static_cast<std::uint32_t>(strings_.size());
    strings_.emplace_back(text);
    ids_.emplace(strings_.back(), id);
    return id;
  }

 private:
  std::vector<std::string>& strings_;
  std::unordered_map<std::string, std::uint32_t> ids_;
};

// The call tree while it is built: nodes in creation order, children by (name, kind).
struct growing_tree {
  struct node {
    std::uint32_t name = 0;
    std::uint8_t kind = 0;
    std::map<std::pair<std::uint32_t, std::uint8_t>, std::uint32_t> children;
  };
  std::vector<node> nodes{node{}};

  std::uint32_t child(std::uint32_t parent, std::uint32_t name, std::uint8_t kind) {
    auto& children = nodes[parent].children;
    if (auto found = children.find({name, kind}); found != children.end()) return found->second;
    auto id = static_cast<std::uint32_t>(nodes.size());
    children.emplace(std::pair{name, kind}, id);
    nodes.push_back(node{name, kind, {}});  // `children` may dangle from here on
    return id;
  }
};

std::string_view text_of(const exporting::profile& source, std::int64_t id) {
  return source.strings[static_cast<std::size_t>(id)];
}

std::string_view label_text(const exporting::profile& source, const exporting::profile_sample& sample,
                            std::string_view key) {
  for (const exporting::sample_label& label : sample.labels)
    if (label.str != 0 && source.strings[static_cast<std::size_t>(label.key)] == key)
      return source.strings[static_cast<std::size_t>(label.str)];
  return "[unknown]";
}

std::int64_t label_number(const exporting::profile& source,
                          const exporting::profile_sample& sample, std::string_view key) {
  for (const exporting::sample_label& label : sample.labels)
    if (label.str == 0 && source.strings[static_cast<std::size_t>(label.key)] == key)
      return label.num;
  return -1;
}

class model_builder {
 public:
  model_builder() : names_(model_.strings) { names_.id("all"); }

  // Adds every sample of `source` to the tree, its weights as events of their own; `base`
  // marks them as the profile a diff compares with (the default event stays the first
  // profile's).
  void add_profile(const exporting::profile& source, bool base) {
    source_ = &source;
    location_names_.assign(source.locations.size() + 1, unnamed);
    kernel_mappings_.clear();
    for (const exporting::profile_mapping& mapping : source.mappings)
      if (mapping.kernel) kernel_mappings_.insert(mapping.id);
    auto first = static_cast<std::uint32_t>(model_.events.size());
    std::vector<std::size_t> columns = weight_columns(base);
    for (const exporting::profile_sample& sample : source.samples)
      for (std::uint32_t event = 0; event < columns.size(); ++event)
        if (std::int64_t weight = sample.values[columns[event]]; weight != 0)
          add(sample, first + event, weight);
  }

  page_model build() {
    number_depth_first();
    return std::move(model_);
  }

 private:
  // The sample types that weigh (not the "..._samples" counts), as the model's events.
  std::vector<std::size_t> weight_columns(bool base) {
    const exporting::profile& source = *source_;
    std::vector<std::size_t> columns;
    for (std::size_t i = 0; i < source.sample_types.size(); ++i) {
      const exporting::value_type& type = source.sample_types[i];
      if (text_of(source, type.type).ends_with("_samples")) continue;
      if (type.type == source.default_sample_type && !base)
        model_.default_event = static_cast<std::uint32_t>(model_.events.size());
      columns.push_back(i);
      model_.events.push_back({std::string(text_of(source, type.type)),
                               std::string(text_of(source, type.unit)), base});
    }
    if (!model_.events.empty() && !base) {
      model_.weight_type = model_.events[model_.default_event].name;
      model_.weight_unit = model_.events[model_.default_event].unit;
    }
    return columns;
  }

  void add(const exporting::profile_sample& sample, std::uint32_t event, std::int64_t weight) {
    std::uint32_t node = 0;
    for (auto id = sample.location_ids.rbegin(); id != sample.location_ids.rend(); ++id) {
      // Each location is named once: stacks share most of their frames.
      std::uint32_t& name = location_names_[*id];
      if (name == unnamed) name = frame_name(*id);
      node = tree_.child(node, name, frame_kind(*id));
      // The functions inlined there, outermost first, as callees of the one they are inside.
      const auto& inlined = source_->locations[*id - 1].inlined_ids;
      for (auto function = inlined.rbegin(); function != inlined.rend(); ++function)
        node = tree_.child(node, function_name(*function), frame_kind(*id));
    }
    std::int64_t bucket = label_number(*source_, sample, "time_bucket");
    auto when = static_cast<std::uint32_t>(std::max<std::int64_t>(bucket, 0));
    if (bucket >= 0) model_.buckets = std::max(model_.buckets, when + 1);
    weights_[{node, thread_of(sample), event, when}] += weight;
    if (event == model_.default_event && !model_.events[event].base) model_.total += weight;
  }

  std::uint32_t frame_name(std::uint64_t location_id) {
    const exporting::profile_location& location = source_->locations[location_id - 1];
    if (location.function_id == 0) return names_.id("[unknown]");
    return function_name(location.function_id);
  }

  std::uint32_t function_name(std::uint64_t function_id) {
    const exporting::profile_function& function = source_->functions[function_id - 1];
    return names_.id(source_->strings[static_cast<std::size_t>(function.name)]);
  }

  std::uint8_t frame_kind(std::uint64_t location_id) const {
    const exporting::profile_location& location = source_->locations[location_id - 1];
    return kernel_mappings_.contains(location.mapping_id) ? kind_kernel : 0;
  }

  std::uint32_t thread_of(const exporting::profile_sample& sample) {
    page_thread thread{names_.id(label_text(*source_, sample, "comm")),
                       label_number(*source_, sample, "pid"), label_number(*source_, sample, "tid")};
    std::string_view container = label_text(*source_, sample, "container_id");
    if (container != "[unknown]") thread.container = names_.id(container);
    auto key = std::make_tuple(thread.name, thread.pid, thread.tid, thread.container);
    auto [at, added] = thread_ids_.try_emplace(key, model_.threads.size());
    if (added) model_.threads.push_back(thread);
    return static_cast<std::uint32_t>(at->second);
  }

  // Children are visited in the order of their names' text (then user before kernel), so the
  // page's layout does not depend on the order samples came in.
  void number_depth_first() {
    std::vector<std::uint32_t> order(tree_.nodes.size());
    struct visit {
      std::uint32_t node;
      std::uint32_t depth;
    };
    std::vector<visit> pending{{0, 0}};
    std::vector<std::uint32_t> children;
    while (!pending.empty()) {
      visit at = pending.back();
      pending.pop_back();
      order[at.node] = static_cast<std::uint32_t>(model_.node_name.size());
      const growing_tree::node& node = tree_.nodes[at.node];
      model_.node_name.push_back(node.name);
      model_.node_depth.push_back(at.depth);
      model_.node_kind.push_back(node.kind);
      children.clear();
      for (const auto& [key, child] : node.children) children.push_back(child);
      std::sort(children.begin(), children.end(), [&](std::uint32_t a, std::uint32_t b) {
        const growing_tree::node& left = tree_.nodes[a];
        const growing_tree::node& right = tree_.nodes[b];
        return std::tie(model_.strings[left.name], left.kind) >
               std::tie(model_.strings[right.name], right.kind);  // popped last to first
      });
      for (std::uint32_t child : children) pending.push_back({child, at.depth + 1});
    }
    for (const auto& [key, weight] : weights_) {
      auto [node, thread, event, bucket] = key;
      model_.rows.push_back({order[node], thread, event, bucket, weight});
    }
    std::sort(model_.rows.begin(), model_.rows.end(), [](const page_row& a, const page_row& b) {
      return std::tie(a.node, a.thread, a.event, a.bucket) <
             std::tie(b.node, b.thread, b.event, b.bucket);
    });
  }

  const exporting::profile* source_ = nullptr;  // the one add_profile reads
  page_model model_;
  string_table names_;
  growing_tree tree_;
  std::unordered_set<std::uint64_t> kernel_mappings_;
  static constexpr std::uint32_t unnamed = ~0u;
  std::vector<std::uint32_t> location_names_;  // by location id
  std::map<std::tuple<std::uint32_t, std::int64_t, std::int64_t, std::uint32_t>, std::size_t>
      thread_ids_;
  // (node, thread, event, bucket)
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>, std::int64_t>
      weights_;
};

}  // namespace

std::vector<std::int64_t> page_model::node_totals() const {
  std::vector<std::int64_t> totals(node_name.size(), 0);
  for (const page_row& row : rows)
    if (row.event == default_event) totals[row.node] += row.weight;
  // Children come after their parent: adding each node into its parent from the end sums
  // whole subtrees. The parent is the nearest earlier node one level up.
  std::vector<std::uint32_t> parent(node_name.size(), 0);
  std::vector<std::uint32_t> path;
  for (std::uint32_t node = 0; node < node_name.size(); ++node) {
    path.resize(node_depth[node]);
    if (!path.empty()) parent[node] = path.back();
    path.push_back(node);
  }
  for (std::size_t node = node_name.size(); node-- > 1;) totals[parent[node]] += totals[node];
  return totals;
}

void coarsen_buckets(page_model& model, std::size_t max_rows) {
  while (model.rows.size() > max_rows && model.buckets > 1) {
    // Rows stay sorted by (node, thread, event, bucket) when buckets are halved: the rows to
    // sum are neighbours.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < model.rows.size(); ++i) {
      page_row row = model.rows[i];
      row.bucket /= 2;
      const page_row* last = kept ? &model.rows[kept - 1] : nullptr;
      if (last && last->node == row.node && last->thread == row.thread &&
          last->event == row.event && last->bucket == row.bucket)
        model.rows[kept - 1].weight += row.weight;
      else
        model.rows[kept++] = row;
    }
    model.rows.resize(kept);
    model.buckets = (model.buckets + 1) / 2;
    model.bucket_ns *= 2;
  }
}

page_model build_page_model(const exporting::profile& source, const exporting::profile* base) {
  model_builder builder;
  builder.add_profile(source, false);
  if (base) builder.add_profile(*base, true);
  return builder.build();
}

}  // namespace arec::report
