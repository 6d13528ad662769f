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

// "<K> files; the last, <PATH>, has <B> bytes": the rotation form's end.
bool take_files(std::string_view line, arec_summary& summary) {
  constexpr std::string_view after_path = " bytes";
  if (!take(line, summary.files) || !take(line, " files; the last, ") ||
      !line.ends_with(after_path))
    return false;
  line.remove_suffix(after_path.size());
  std::size_t has = line.rfind(", has ");
  if (has == std::string_view::npos || has == 0) return false;
  std::string_view number = line.substr(has + 6);
  if (!take(number, summary.last_bytes) || !number.empty()) return false;
  summary.path = line.substr(0, has);
  return true;
}

std::optional<arec_summary> parse_line(std::string_view line) {
  arec_summary summary;
  if (!take(line, "arec: ") || !take(line, summary.samples) || !take(line, " samples, ") ||
      !take(line, summary.lost) || !take(line, " lost, ") || !take(line, summary.bytes) ||
      !take(line, " bytes written to ") || line.empty())
    return std::nullopt;
  if (take_files(line, summary) && summary.files > 1) return summary;
  summary.files = 1;
  summary.path = line;
  summary.last_bytes = summary.bytes;
  return summary;
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

std::uint64_t last_progress(std::string_view stderr_text) {
  constexpr std::string_view marker = "arec: progress: ";
  std::uint64_t samples = 0;
  for (std::size_t at = stderr_text.find(marker); at != std::string_view::npos;
       at = stderr_text.find(marker, at + 1)) {
    std::string_view count = stderr_text.substr(at + marker.size());
    std::from_chars(count.data(), count.data() + count.size(), samples);
  }
  return samples;
}

bool wait_for_samples_on_disk(test::child_process& recording, std::uint64_t samples) {
  constexpr std::chrono::seconds limit{60};
  const std::string line_end = " samples on disk\n";
  std::size_t from = 0;
  while (recording.wait_for_stderr(line_end, limit, from)) {
    from = recording.stderr_read();
    if (last_progress(recording.stderr_so_far()) > samples)
      return recording.wait_for_stderr(line_end, limit, from);
  }
  return false;
}

}  // namespace arec::e2e
