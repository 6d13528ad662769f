#include "record/events/sample_registers.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace arec::record {
namespace {

// Bit numbers are the kernel's enum perf_event_x86_regs. DS, ES, FS and GS exist only for
// 32-bit tasks, and the XMM registers only with PEBS, which this build does not probe: perf
// leaves them out of the list on such machines too.
constexpr std::array<std::pair<std::string_view, unsigned>, 20> registers{{
    {"AX", 0},   {"BX", 1},   {"CX", 2},    {"DX", 3},   {"SI", 4},   {"DI", 5},   {"BP", 6},
    {"SP", 7},   {"IP", 8},   {"FLAGS", 9}, {"CS", 10},  {"SS", 11},  {"R8", 16},  {"R9", 17},
    {"R10", 18}, {"R11", 19}, {"R12", 20},  {"R13", 21}, {"R14", 22}, {"R15", 23},
}};

bool same_name(std::string_view given, std::string_view known) {
  return given.size() == known.size() &&
         std::equal(given.begin(), given.end(), known.begin(), [](char a, char b) {
           return std::toupper(static_cast<unsigned char>(a)) == b;
         });
}

}  // namespace

std::optional<std::uint64_t> parse_sample_registers(std::string_view list, std::string& unknown) {
  std::uint64_t mask = 0;
  while (true) {
    std::string_view name = list.substr(0, list.find(','));
    auto known = std::find_if(registers.begin(), registers.end(),
                              [&](const auto& reg) { return same_name(name, reg.first); });
    if (known == registers.end()) {
      unknown = std::string(name);
      return std::nullopt;
    }
    mask |= std::uint64_t{1} << known->second;
    if (name.size() == list.size()) return mask;
    list.remove_prefix(name.size() + 1);
  }
}

std::string sample_register_names() {
  std::string names;
  for (const auto& [name, bit] : registers) {
    if (!names.empty()) names += ' ';
    names += name;
  }
  return names;
}

}  // namespace arec::record
