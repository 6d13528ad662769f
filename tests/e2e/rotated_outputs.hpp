// rotated_outputs: the files (or --threads directories) that --switch-output and --overwrite
// snapshots leave, found by perf's names PATH.YYYYmmddHHMMSScc.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace arec::e2e {

// The outputs named `base`.<16 digits> in `dir`, oldest first (the names sort by time).
inline std::vector<std::string> rotated_outputs(const std::string& dir, const std::string& base) {
  constexpr std::size_t timestamp_digits = 16;  // YYYYmmddHHMMSS and centiseconds
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with(base + ".")) continue;
    std::string stamp = name.substr(base.size() + 1);
    if (stamp.size() == timestamp_digits &&
        std::all_of(stamp.begin(), stamp.end(), [](char c) { return c >= '0' && c <= '9'; }))
      found.push_back(entry.path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace arec::e2e
