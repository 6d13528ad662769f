#include "perf_report.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

namespace arec::e2e {

std::vector<report_row> parse_perf_report(std::string_view text) {
  static const std::regex row(R"(^\s*([0-9]+\.[0-9]+)%\s+(.*?)\s+\[(.)\]\s+(.*?)\s*$)");
  std::vector<report_row> rows;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    start = end + 1;
    std::smatch match;
    if (line.starts_with('#') || !std::regex_match(line, match, row)) continue;
    rows.push_back({std::stod(match[1]), match[2], match[3].str()[0], match[4]});
  }
  return rows;
}

perf_report run_perf_report(const std::string& data_file) {
  perf_report report;
  report.run = run_command({"perf", "report", "--stdio", "-i", data_file, "--sort", "dso,sym",
                            "--no-children", "-g", "none"});
  report.rows = parse_perf_report(report.run.out);
  return report;
}

bool has_warning(const command_result& run) {
  std::string lower = run.err;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("warning") != std::string::npos;
}

}  // namespace arec::e2e
