#include "arec_summary.hpp"

#include <charconv>

namespace arec::e2e {

namespace {

// Consumes `literal` from the front of `text`.
bool take(std::string_view& text, std::string_view literal) {
  if (!text.starts_with(literal)) return false;
  text.remove_prefix(literal.size());
  return true;
}

// Consumes a decimal number from the front of `text`.
bool take(std::string_view& text, std::uint64_t& value) {
  auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
  if (parsed.ec != std::errc{} || parsed.ptr == text.data()) return false;
  text.remove_prefix(static_cast<std::size_t>(parsed.ptr - text.data()));
  return true;
}

std::optional<arec_summary> parse_line(std::string_view line) {
  arec_summary summary;
  if (take(line, "arec: ") && take(line, summary.samples) && take(line, " samples, ") &&
      take(line, summary.lost) && take(line, " lost, ") && take(line, summary.bytes) &&
      take(line, " bytes written to ") && !line.empty()) {
    summary.path = line;
    return summary;
  }
  return std::nullopt;
}

}  // namespace

std::optional<arec_summary> find_arec_summary(std::string_view stderr_text) {
  std::optional<arec_summary> found;
  std::size_t start = 0;
  while (start < stderr_text.size()) {
    std::size_t end = stderr_text.find('\n', start);
    if (end == std::string_view::npos) end = stderr_text.size();
    if (auto summary = parse_line(stderr_text.substr(start, end - start))) found = summary;
    start = end + 1;
  }
  return found;
}

}  // namespace arec::e2e
