// folded_stacks: `arec export --format=folded` text ("frame;frame;leaf COUNT" per line) read
// back for the share of samples whose leaf frame is a given function.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

namespace arec::e2e {

struct leaf_samples {
  double named = 0;  // samples whose leaf contains the name
  double total = 0;  // all samples
};

inline leaf_samples samples_with_leaf(const std::string& folded, std::string_view name) {
  std::istringstream lines{folded};
  leaf_samples samples;
  for (std::string line; std::getline(lines, line);) {
    std::size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    double count = std::stod(line.substr(space + 1));
    samples.total += count;
    std::string leaf = line.substr(0, space);
    leaf = leaf.substr(leaf.rfind(';') + 1);
    if (leaf.find(name) != std::string::npos) samples.named += count;
  }
  return samples;
}

}  // namespace arec::e2e
