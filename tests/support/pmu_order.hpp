// pmu_order: what the tests comparing arec's PMU_MAPPINGS with perf's need to know about perf.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace arec::test {

// Whether perf record with only software events lists PMUs in an order other than its
// directory's: on an Intel CPU it looks up intel_pt and intel_bts first (arec keeps directory
// order).
inline bool perf_lists_intel_auxtrace_first() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string text((std::istreambuf_iterator<char>(cpuinfo)), std::istreambuf_iterator<char>());
  if (text.find("GenuineIntel") == std::string::npos) return false;
  return std::filesystem::exists("/sys/bus/event_source/devices/intel_pt") ||
         std::filesystem::exists("/sys/bus/event_source/devices/intel_bts");
}

}  // namespace arec::test
