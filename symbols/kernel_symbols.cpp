#include "symbols/kernel_symbols.hpp"

#include <algorithm>

#include "symbols/kallsyms.hpp"

namespace arec::symbols {

std::optional<std::vector<std::string>> kernel_function_names(
    const char* path, std::span<const std::uint64_t> addresses) {
  // kallsyms is not wholly sorted (modules, aliases): each symbol is a candidate only for the
  // first address at or above its start; the best for an address is then the greatest start
  // among the candidates of it and of every address below it.
  struct candidate {
    std::uint64_t start = 0;
    std::string name;
    bool found = false;
  };
  std::vector<candidate> best(addresses.size());
  bool readable = for_each_kallsyms_entry(path, [&](const kallsyms_entry& entry) {
    if (entry.address == 0 || !entry.is_text()) return true;
    auto first = std::lower_bound(addresses.begin(), addresses.end(), entry.address);
    if (first == addresses.end()) return true;
    candidate& slot = best[static_cast<std::size_t>(first - addresses.begin())];
    // Ties keep the file's first name, as a sorted table searched by start would.
    if (!slot.found || entry.address > slot.start) {
      slot.start = entry.address;
      slot.name.assign(entry.name);
      slot.found = true;
    }
    return true;
  });
  if (!readable) return std::nullopt;
  std::vector<std::string> names(addresses.size());
  const candidate* running = nullptr;
  for (std::size_t i = 0; i < best.size(); ++i) {
    if (best[i].found && (!running || best[i].start >= running->start)) running = &best[i];
    if (running) names[i] = running->name;
  }
  return names;
}

}  // namespace arec::symbols
