#include "symbols/jit_lines.hpp"

#include <algorithm>

#include "host/jitdump.hpp"

namespace arec::symbols {
namespace {

constexpr std::size_t entry_fixed = 16;  // addr, lineno, discrim
// V8's addresses are the instruction's plus its kElfHeaderSize (0x40 on 64-bit targets).
constexpr std::uint64_t v8_shift = 0x40;

constexpr std::uint32_t max_line = 10'000'000;

// Whether an entry is one a runtime writes: an address in the code (V8's may be 0x40 past its
// end), a line below ten million, a file name without control characters.
bool plausible(std::string_view file, std::uint32_t line, std::uint64_t address,
               std::uint64_t code_start, std::uint64_t code_size) {
  bool in_code = address >= code_start && address - code_start <= code_size + v8_shift;
  bool printable = std::ranges::none_of(file, [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
  return in_code && line <= max_line && printable;
}

}  // namespace

jit_line_table::jit_line_table(std::span<const std::byte> entries, std::uint64_t count,
                               bool swapped, std::uint64_t code_start, std::uint64_t code_size,
                               std::string_view name) {
  std::vector<std::uint64_t> addresses;  // beside rows_, until the shift is known
  std::optional<std::uint32_t> previous;
  std::size_t at = 0;
  for (std::uint64_t i = 0; i < count && entries.size() - at > entry_fixed; ++i) {
    auto address = host::jitdump_value<std::uint64_t>(entries, at, swapped);
    auto line = host::jitdump_value<std::uint32_t>(entries, at + 8, swapped);
    std::string_view rest(reinterpret_cast<const char*>(entries.data() + at + entry_fixed),
                          entries.size() - at - entry_fixed);
    std::size_t end = rest.find('\0');
    if (end == std::string_view::npos) break;
    std::string_view file = rest.substr(0, end);
    at += entry_fixed + end + 1;
    if (file != "\xff" && !file.empty()) {  // "\xff": the previous entry's file
      if (files_.empty() || files_.back() != file) files_.emplace_back(file);
      previous = static_cast<std::uint32_t>(files_.size() - 1);
    }
    if (!plausible(file, line, address, code_start, code_size)) {
      rows_.clear();
      return;
    }
    if (!previous || line == 0) continue;  // no file, or no line
    addresses.push_back(address);
    rows_.push_back({0, line, *previous});
  }
  std::uint64_t base = code_start;
  if (name.starts_with("JS:") && !addresses.empty() &&
      *std::ranges::min_element(addresses) == code_start + v8_shift)
    base += v8_shift;
  std::vector<row> kept;
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (addresses[i] >= base) kept.push_back({addresses[i] - base, rows_[i].line, rows_[i].file});
  std::ranges::stable_sort(kept, {}, &row::offset);
  rows_ = std::move(kept);
}

std::optional<jit_source_line> jit_line_table::at(std::uint64_t offset) const {
  auto after = std::ranges::upper_bound(rows_, offset, {}, &row::offset);
  if (after == rows_.begin()) return std::nullopt;
  const row& found = *std::prev(after);
  return jit_source_line{files_[found.file], found.line};
}

}  // namespace arec::symbols
