#include "cli/option_values.hpp"

#include <cctype>
#include <charconv>
#include <limits>

namespace arec::cli {
namespace {

// The multiplier of perf's size suffixes B, K, M and G (either case); 0 for anything else.
std::uint64_t size_unit(char suffix) {
  constexpr std::string_view suffixes = "bkmg";
  auto at = suffixes.find(static_cast<char>(std::tolower(static_cast<unsigned char>(suffix))));
  return at == std::string_view::npos ? 0 : std::uint64_t{1} << (10 * at);
}

}  // namespace

std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || stop != end) return std::nullopt;
  return value;
}

bool has_size_suffix(std::string_view text) {
  return !text.empty() && size_unit(text.back());
}

std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::uint64_t unit = 1;
  if (has_size_suffix(text)) {
    unit = size_unit(text.back());
    text.remove_suffix(1);
  }
  std::optional<std::uint64_t> count = parse_unsigned(text);
  if (!count || *count > std::numeric_limits<std::uint64_t>::max() / unit) return std::nullopt;
  return *count * unit;
}

int parse_compression_level(const option_use& use) {
  std::optional<std::uint64_t> level = parse_unsigned(use.value);
  if (!level || *level < 1 || *level > 22)
    reject(use, "the compression level must be a whole number from 1 to 22");
  return static_cast<int>(*level);
}

}  // namespace arec::cli
