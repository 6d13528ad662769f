#include "host/proc_maps.hpp"

#include <sys/mman.h>

#include <charconv>
#include <cstring>

namespace arec::host {
namespace {

// Consumes a number in `base` followed by `separator`; false if either is missing.
template <typename Int>
bool take_number(std::string_view& text, Int& value, int base, char separator) {
  const char* first = text.data();
  const char* last = first + text.size();
  auto [end, ec] = std::from_chars(first, last, value, base);
  if (ec != std::errc{} || end == first || end == last || *end != separator) return false;
  text.remove_prefix(static_cast<std::size_t>(end - first) + 1);
  return true;
}

// Like take_number, but the number may also end the text (an anonymous line without padding).
bool take_last_number(std::string_view& text, std::uint64_t& value) {
  const char* first = text.data();
  const char* last = first + text.size();
  auto [end, ec] = std::from_chars(first, last, value, 10);
  if (ec != std::errc{} || end == first || (end != last && *end != ' ')) return false;
  text.remove_prefix(static_cast<std::size_t>(end - first));
  return true;
}

}  // namespace

std::optional<maps_entry> parse_maps_line(std::string_view line) {
  maps_entry entry;
  if (!take_number(line, entry.start, 16, '-')) return std::nullopt;
  if (!take_number(line, entry.end, 16, ' ')) return std::nullopt;
  if (line.size() < 5 || line[4] != ' ') return std::nullopt;
  auto flag = [&](std::size_t i, char set, std::uint32_t bit) {
    if (line[i] == set) entry.prot |= bit;
    return line[i] == set || line[i] == '-';
  };
  if (!flag(0, 'r', PROT_READ) || !flag(1, 'w', PROT_WRITE) || !flag(2, 'x', PROT_EXEC))
    return std::nullopt;
  if (line[3] != 's' && line[3] != 'p') return std::nullopt;
  entry.shared = line[3] == 's';
  line.remove_prefix(5);
  if (!take_number(line, entry.pgoff, 16, ' ')) return std::nullopt;
  if (!take_number(line, entry.major, 16, ':')) return std::nullopt;
  if (!take_number(line, entry.minor, 16, ' ')) return std::nullopt;
  if (!take_last_number(line, entry.inode)) return std::nullopt;
  // The kernel pads with spaces to a column before the name; names never start with a space
  // (they are absolute paths or "[...]"), while spaces inside the name are kept.
  auto name = line.find_first_not_of(' ');
  entry.path = name == std::string_view::npos ? std::string_view{} : line.substr(name);
  return entry;
}

std::optional<std::size_t> decode_maps_path(std::string_view path, std::span<char> out) {
  static constexpr std::string_view escaped_newline = "\\012";
  std::size_t size = 0;
  while (!path.empty()) {
    char c = path.front();
    if (path.starts_with(escaped_newline)) {
      c = '\n';
      path.remove_prefix(escaped_newline.size());
    } else {
      path.remove_prefix(1);
    }
    if (size == out.size()) return std::nullopt;
    out[size++] = c;
  }
  return size;
}

std::optional<maps_entry> maps_reader::next() {
  while (auto line = lines_.next()) {
    auto entry = parse_maps_line(line->text);
    if (!entry) continue;
    entry->path_truncated = line->truncated;
    return entry;
  }
  return std::nullopt;
}

}  // namespace arec::host
