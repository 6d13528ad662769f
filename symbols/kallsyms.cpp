#include "symbols/kallsyms.hpp"

#include <charconv>

namespace arec::symbols {

std::optional<kallsyms_entry> parse_kallsyms_line(std::string_view line) {
  kallsyms_entry entry;
  auto [after, error] = std::from_chars(line.data(), line.data() + line.size(), entry.address, 16);
  auto at = static_cast<std::size_t>(after - line.data());
  if (error != std::errc{} || at + 3 > line.size() || line[at] != ' ' || line[at + 2] != ' ')
    return std::nullopt;
  entry.type = line[at + 1];
  std::string_view rest = line.substr(at + 3);
  std::size_t tab = rest.find('\t');
  entry.name = rest.substr(0, tab);
  if (tab != std::string_view::npos) {
    std::string_view module = rest.substr(tab + 1);
    if (module.starts_with('[') && module.ends_with(']'))
      entry.module = module.substr(1, module.size() - 2);
  }
  if (entry.name.empty()) return std::nullopt;
  return entry;
}

}  // namespace arec::symbols
