// folded_stacks: `arec export --format=folded` text ("frame;frame;leaf COUNT" per line) read
// back for the share of samples whose leaf frame is a given function.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

namespace arec::e2e {

// The share of the samples in `folded` whose leaf frame contains `name`; 0 for no samples.
inline double leaf_share(const std::string& folded, std::string_view name) {
  std::istringstream lines{folded};
  double total = 0, named = 0;
  for (std::string line; std::getline(lines, line);) {
    std::size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    double count = std::stod(line.substr(space + 1));
    total += count;
    std::string leaf = line.substr(0, space);
    leaf = leaf.substr(leaf.rfind(';') + 1);
    if (leaf.find(name) != std::string::npos) named += count;
  }
  return total == 0 ? 0 : named / total;
}

}  // namespace arec::e2e
