// CPU lists in the kernel's text form ("0-3,8"): parsing for -C and sysfs, and the canonical
// form arec prints (ascending, ranges joined).
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace arec::host {

inline constexpr int max_cpus = 4096;

// Parses "0,2-3" into a sorted list without duplicates. An empty (or all-blank) text is an
// empty list. Throws std::invalid_argument naming the bad part for malformed input, reversed
// ranges and CPUs >= max_cpus.
std::vector<int> parse_cpu_list(std::string_view text);

// Formats ascending CPUs canonically: "0-3,8". `cpus` must be sorted.
std::string format_cpu_list(std::span<const int> cpus);

}  // namespace arec::host
