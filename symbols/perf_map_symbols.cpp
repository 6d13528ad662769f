#include "symbols/perf_map_symbols.hpp"

#include <algorithm>
#include <charconv>

namespace arec::symbols {
namespace {

// How far back a lookup looks for an older, longer symbol that still contains the address.
constexpr std::size_t overlap_reach = 16;

bool parse_hex(std::string_view& text, std::uint64_t& value) {
  if (text.starts_with("0x")) text.remove_prefix(2);
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc{} || end == text.data()) return false;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return true;
}

bool skip_space(std::string_view& text) {
  std::size_t spaces = text.find_first_not_of(' ');
  if (spaces == 0 || spaces == std::string_view::npos) return false;
  text.remove_prefix(spaces);
  return true;
}

}  // namespace

std::vector<perf_map_symbol> parse_perf_map(std::string_view text) {
  std::vector<perf_map_symbol> symbols;
  std::size_t line_number = 0;
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    ++line_number;
    perf_map_symbol symbol;
    std::uint64_t size = 0;
    if (!parse_hex(line, symbol.start) || !skip_space(line) || !parse_hex(line, size) ||
        !skip_space(line) || size == 0 || symbol.start + size < symbol.start)
      continue;
    while (line.ends_with('\r')) line.remove_suffix(1);
    symbol.end = symbol.start + size;
    symbol.line = line_number;
    symbol.name = std::string(line);
    symbols.push_back(std::move(symbol));
  }
  std::stable_sort(
      symbols.begin(), symbols.end(),
      [](const perf_map_symbol& a, const perf_map_symbol& b) { return a.start < b.start; });
  return symbols;
}

const perf_map_symbol* perf_map_symbol_at(const std::vector<perf_map_symbol>& symbols,
                                          std::uint64_t address) {
  auto after = std::upper_bound(
      symbols.begin(), symbols.end(), address,
      [](std::uint64_t value, const perf_map_symbol& symbol) { return value < symbol.start; });
  const perf_map_symbol* best = nullptr;
  for (std::size_t looked = 0; after != symbols.begin() && looked < overlap_reach; ++looked) {
    --after;
    if (address < after->end && (!best || after->line > best->line)) best = &*after;
  }
  return best;
}

}  // namespace arec::symbols
