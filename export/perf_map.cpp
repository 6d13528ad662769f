#include "export/perf_map.hpp"

#include <fcntl.h>

#include <system_error>

#include "io/owned_files.hpp"

namespace arec::exporting {
namespace {

// The map file, read only when it is a regular file within the bound, never through a symlink.
std::string read_map(const std::string& path) {
  try {
    auto read = io::read_bounded_regular_file(AT_FDCWD, path, perf_maps::max_bytes, O_NOFOLLOW);
    if (read && read->problem.empty()) return std::move(read->text);
  } catch (const std::system_error&) {
    // unreadable: no names, as for a missing map
  }
  return {};
}

}  // namespace

void perf_maps::use_captured(pid_t pid, std::string_view text) {
  by_pid_[pid] = symbols::parse_perf_map(text);
}

std::string_view perf_maps::function_at(pid_t pid, std::uint64_t address) {
  auto [found, added] = by_pid_.try_emplace(pid);
  if (added && !dir_.empty())
    found->second = symbols::parse_perf_map(read_map(dir_ + "/perf-" + std::to_string(pid) + ".map"));
  const perf_map_symbol* symbol = symbols::perf_map_symbol_at(found->second, address);
  return symbol ? std::string_view{symbol->name} : std::string_view{};
}

}  // namespace arec::exporting
