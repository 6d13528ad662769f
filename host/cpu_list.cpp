#include "host/cpu_list.hpp"

#include <algorithm>
#include <charconv>

#include "base/trimmed.hpp"

namespace arec::host {
namespace {

int parse_cpu(std::string_view number, std::string_view part) {
  int cpu = -1;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), cpu);
  if (number.empty() || ec != std::errc{} || end != number.data() + number.size())
    throw std::invalid_argument("bad cpu list entry '" + std::string(part) + "'");
  if (cpu >= max_cpus)
    throw std::invalid_argument("cpu " + std::string(number) + " is beyond the supported " +
                                std::to_string(max_cpus) + " cpus");
  return cpu;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  text = base::trimmed(text);
  while (!text.empty()) {
    auto comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (comma != std::string_view::npos && text.empty())
      throw std::invalid_argument("cpu list ends with ','");
    auto dash = part.find('-');
    int first = parse_cpu(part.substr(0, dash), part);
    int last = dash == std::string_view::npos ? first : parse_cpu(part.substr(dash + 1), part);
    if (last < first) throw std::invalid_argument("reversed cpu range '" + std::string(part) + "'");
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(std::span<const int> cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(cpus[i]);
    if (j > i) text += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace arec::host
