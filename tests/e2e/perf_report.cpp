#include "perf_report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>

#include "base/trimmed.hpp"

namespace arec::e2e {

namespace {

// "99.45%  hot_loop    [.] hot_function": the percentage, the DSO up to the one-letter level
// marker ("[kernel.kallsyms]" is a DSO, "[k]" a marker), then the symbol.
bool parse_row(std::string_view line, report_row& row) {
  line = base::trimmed(line);
  auto percent_end = line.find('%');
  if (line.starts_with('#') || percent_end == std::string_view::npos) return false;
  auto parsed = std::from_chars(line.data(), line.data() + percent_end, row.percent);
  if (parsed.ec != std::errc{} || parsed.ptr != line.data() + percent_end) return false;
  for (std::size_t i = percent_end + 1; i + 2 < line.size(); ++i) {
    bool marker = line[i] == '[' && line[i + 2] == ']' && line[i - 1] == ' ' &&
                  (i + 3 == line.size() || line[i + 3] == ' ');
    if (!marker) continue;
    row.dso = base::trimmed(line.substr(percent_end + 1, i - percent_end - 1));
    row.level = line[i + 1];
    row.symbol = base::trimmed(line.substr(i + 3));
    return !row.dso.empty();
  }
  return false;
}

}  // namespace

std::size_t sample_records(const std::string& file) {
  test::command_result stats =
      test::run_command({"perf", "report", "--stats", "-i", file}, std::chrono::seconds{120});
  EXPECT_EQ(stats.exit_code, 0) << file << ": " << stats.describe();
  // "Aggregated stats:" first, then per event: the first "SAMPLE events:" line is the total.
  std::string_view out = stats.out;
  std::size_t at = out.find("SAMPLE events:");
  if (at == std::string_view::npos) return 0;
  out.remove_prefix(at + std::string_view{"SAMPLE events:"}.size());
  out.remove_prefix(std::min(out.find_first_not_of(' '), out.size()));
  std::size_t count = 0;
  std::from_chars(out.data(), out.data() + out.size(), count);
  return count;
}

std::vector<report_row> parse_perf_report(std::string_view text) {
  std::vector<report_row> rows;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    report_row row;
    if (parse_row(text.substr(start, end - start), row)) rows.push_back(std::move(row));
    start = end + 1;
  }
  return rows;
}

perf_report run_perf_report(const std::string& data_file) {
  perf_report report;
  report.run = test::run_command({"perf", "report", "--stdio", "-i", data_file, "--sort", "dso,sym",
                                  "--no-children", "-g", "none"});
  report.rows = parse_perf_report(report.run.out);
  return report;
}

bool has_warning_besides_lost_chunks(const test::command_result& run) {
  static const std::regex lost_chunks(
      R"(Warning:\s*\nProcessed \d+ events and lost \d+ chunks!\s*\n\s*Check IO/CPU overload!\s*\n?)",
      std::regex::icase);
  test::command_result rest = run;
  rest.err = std::regex_replace(run.err, lost_chunks, "");
  return has_warning(rest);
}

bool has_warning(const test::command_result& run) {
  std::string lower = run.err;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("warning") != std::string::npos;
}

}  // namespace arec::e2e
