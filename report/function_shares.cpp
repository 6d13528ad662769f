#include "report/function_shares.hpp"

#include <algorithm>
#include <tuple>

namespace arec::report {

std::vector<function_share> function_shares(const page_model& model) {
  std::vector<function_share> shares(model.strings.size());
  for (std::uint32_t name = 0; name < shares.size(); ++name) shares[name].name = name;
  std::vector<std::int64_t> totals = model.node_totals();
  for (const page_row& row : model.rows)
    if (row.event == model.default_event) shares[model.node_name[row.node]].self += row.weight;
  // A node adds to its function's total only when no caller on its path is the same function:
  // a recursion's inner calls are inside the outermost one's total already.
  std::vector<std::uint32_t> on_path(model.strings.size(), 0);
  std::vector<std::uint32_t> path;
  for (std::uint32_t node = 1; node < model.node_name.size(); ++node) {
    while (path.size() >= model.node_depth[node]) {
      --on_path[model.node_name[path.back()]];
      path.pop_back();
    }
    std::uint32_t name = model.node_name[node];
    if (on_path[name]++ == 0) shares[name].total += totals[node];
    path.push_back(node);
  }
  std::erase_if(shares, [](const function_share& share) { return share.total == 0; });
  std::sort(shares.begin(), shares.end(), [](const function_share& a, const function_share& b) {
    return std::tie(b.self, b.total, a.name) < std::tie(a.self, a.total, b.name);
  });
  return shares;
}

}  // namespace arec::report
