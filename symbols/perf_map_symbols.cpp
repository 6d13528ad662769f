#include "symbols/perf_map_symbols.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

namespace arec::symbols {
namespace {

// How far back a lookup looks for an older, longer symbol that still contains the address.
constexpr std::size_t overlap_reach = 16;
// Name offsets are 32 bits: names beyond are left out (a bounded map never gets there).
constexpr std::size_t max_names_bytes = std::numeric_limits<std::uint32_t>::max();

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

std::size_t count_lines(std::string_view text) {
  std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  return lines + (!text.empty() && !text.ends_with('\n') ? 1 : 0);
}

// The text after its first `lines` lines.
std::string_view skip_lines(std::string_view text, std::size_t lines) {
  for (; lines > 0 && !text.empty(); --lines) {
    std::size_t newline = text.find('\n');
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
  }
  return text;
}

}  // namespace

perf_map_table::perf_map_table(std::string_view text, std::size_t max) {
  std::size_t lines = count_lines(text);
  left_out_ = lines > max ? lines - max : 0;
  text = skip_lines(text, left_out_);
  symbols_.reserve(std::min(lines, max));
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    perf_map_symbol symbol;
    std::uint64_t size = 0;
    if (!parse_hex(line, symbol.start) || !skip_space(line) || !parse_hex(line, size) ||
        !skip_space(line) || size == 0 || symbol.start + size < symbol.start)
      continue;
    while (line.ends_with('\r')) line.remove_suffix(1);
    if (names_.size() + line.size() > max_names_bytes) {
      ++left_out_;
      continue;
    }
    symbol.end = symbol.start + size;
    symbol.name_at = static_cast<std::uint32_t>(names_.size());
    symbol.name_size = static_cast<std::uint32_t>(line.size());
    names_.append(line);
    symbols_.push_back(symbol);
  }
  // name_at grows with the line, so this is a stable sort by start without its buffer.
  std::sort(symbols_.begin(), symbols_.end(),
            [](const perf_map_symbol& a, const perf_map_symbol& b) {
              return a.start != b.start ? a.start < b.start : a.name_at < b.name_at;
            });
  symbols_.shrink_to_fit();
  names_.shrink_to_fit();
}

const perf_map_symbol* perf_map_table::at(std::uint64_t address) const {
  auto after = std::upper_bound(
      symbols_.begin(), symbols_.end(), address,
      [](std::uint64_t value, const perf_map_symbol& symbol) { return value < symbol.start; });
  const perf_map_symbol* best = nullptr;
  for (std::size_t looked = 0; after != symbols_.begin() && looked < overlap_reach; ++looked) {
    --after;
    if (address < after->end && (!best || after->name_at > best->name_at)) best = &*after;
  }
  return best;
}

}  // namespace arec::symbols
