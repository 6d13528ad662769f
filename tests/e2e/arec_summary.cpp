#include "arec_summary.hpp"

#include <regex>

namespace arec::e2e {

std::optional<arec_summary> find_arec_summary(std::string_view stderr_text) {
  static const std::regex format(R"(^arec: ([0-9]+) samples, ([0-9]+) lost, ([0-9]+) bytes written to (.+)$)");
  std::optional<arec_summary> found;
  std::size_t start = 0;
  while (start < stderr_text.size()) {
    std::size_t end = stderr_text.find('\n', start);
    if (end == std::string_view::npos) end = stderr_text.size();
    std::string line(stderr_text.substr(start, end - start));
    start = end + 1;
    std::smatch match;
    if (!std::regex_match(line, match, format)) continue;
    found = arec_summary{std::stoull(match[1]), std::stoull(match[2]), std::stoull(match[3]),
                         match[4]};
  }
  return found;
}

}  // namespace arec::e2e
