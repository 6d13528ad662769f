#include "thread_summary.hpp"

#include <charconv>
#include <stdexcept>
#include <string>

#include "host/cpu_list.hpp"

namespace arec::e2e {

namespace {

bool take(std::string_view& text, std::string_view literal) {
  if (!text.starts_with(literal)) return false;
  text.remove_prefix(literal.size());
  return true;
}

template <typename Number>
bool take_number(std::string_view& text, Number& value) {
  auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
  if (parsed.ec != std::errc{} || parsed.ptr == text.data()) return false;
  text.remove_prefix(static_cast<std::size_t>(parsed.ptr - text.data()));
  return true;
}

// Consumes a non-empty cpu list up to the next blank.
bool take_cpu_list(std::string_view& text, std::vector<int>& cpus) {
  std::string_view list = text.substr(0, text.find(' '));
  if (list.empty()) return false;
  try {
    cpus = host::parse_cpu_list(list);
  } catch (const std::invalid_argument&) {
    return false;
  }
  text.remove_prefix(list.size());
  return true;
}

std::optional<thread_summary> parse_thread_line(std::string_view line) {
  thread_summary t;
  if (take(line, "arec: thread ") && take_number(line, t.index) && take(line, ": cpus=") &&
      take_cpu_list(line, t.cpus) && take(line, " affinity=") && take_cpu_list(line, t.affinity) &&
      take(line, " ran_on=") && (line.starts_with(' ') || take_cpu_list(line, t.ran_on)) &&
      take(line, " samples=") && take_number(line, t.samples) && take(line, " lost=") &&
      take_number(line, t.lost) && take(line, " bytes=") && take_number(line, t.bytes) &&
      take(line, " drains=") && take_number(line, t.drains) && take(line, " cpu_time=") &&
      take_number(line, t.cpu_seconds) && line == "s")
    return t;
  return std::nullopt;
}

std::optional<compression_summary> parse_compression_line(std::string_view line) {
  compression_summary c;
  if (take(line, "arec: compressed ") && take_number(line, c.bytes_in) &&
      take(line, " bytes to ") && take_number(line, c.bytes_out) && take(line, " (ratio ") &&
      take_number(line, c.ratio) && line == ")")
    return c;
  return std::nullopt;
}

template <typename Visit>
void for_each_line(std::string_view text, Visit visit) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    visit(text.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

std::vector<thread_summary> find_thread_summaries(std::string_view stderr_text) {
  std::vector<thread_summary> threads;
  for_each_line(stderr_text, [&](std::string_view line) {
    if (!line.starts_with("arec: thread ")) return;
    std::optional<thread_summary> parsed = parse_thread_line(line);
    if (!parsed) throw std::invalid_argument("malformed thread line: " + std::string(line));
    threads.push_back(std::move(*parsed));
  });
  return threads;
}

std::optional<compression_summary> find_compression_summary(std::string_view stderr_text) {
  std::optional<compression_summary> found;
  for_each_line(stderr_text, [&](std::string_view line) {
    if (auto parsed = parse_compression_line(line)) found = parsed;
  });
  return found;
}

}  // namespace arec::e2e
