#include "export/perf_map.hpp"

#include <algorithm>
#include <optional>
#include <system_error>
#include <utility>

#include "host/process_perf_map.hpp"

namespace arec::exporting {
namespace {

constexpr std::size_t refusals_named = 4;

}  // namespace

std::string perf_maps::read_from_dir(pid_t pid) {
  std::string problem;
  try {
    std::optional<io::bounded_file> read = host::read_perf_map_file(dir_, pid);
    if (!read) return {};
    if (read->problem.empty()) return std::move(read->text);
    problem = dir_ + "/perf-" + std::to_string(pid) + ".map " + read->problem;
  } catch (const std::system_error& error) {
    problem = error.what();
  }
  if (++refused_ <= refusals_named)
    warnings_.push_back(problem + ": it names no frame of process " + std::to_string(pid));
  else if (refused_ == refusals_named + 1)
    warnings_.push_back("more perf maps in " + dir_ +
                        " are refused or unreadable; not named again");
  return {};
}

perf_maps::process_map& perf_maps::add(pid_t pid, std::string_view text, bool captured) {
  process_map& map = by_pid_[pid];
  symbols_ -= map.table.size();
  left_out_ -= map.table.left_out();
  map.table = {};  // freed before the next one is parsed
  std::size_t room = max_symbols_ - symbols_;
  map.table = symbols::perf_map_table(text, std::min(symbols::perf_map_table::max_symbols, room));
  map.captured = captured;
  symbols_ += map.table.size();
  if (map.table.left_out() != 0 && !said_left_out_) {
    said_left_out_ = true;
    warnings_.push_back("the perf map of process " + std::to_string(pid) + ": " +
                        std::to_string(map.table.left_out()) +
                        " of its lines are not read (at most " +
                        std::to_string(symbols::perf_map_table::max_symbols) + " of one map, " +
                        std::to_string(max_symbols_) +
                        " of all maps together, the last ones written): the JIT frames they "
                        "name stay unnamed");
  }
  left_out_ += map.table.left_out();
  return map;
}

void perf_maps::use_captured(pid_t pid, std::string_view text) {
  add(pid, text, true);
}

std::string_view perf_maps::function_at(pid_t pid, std::uint64_t address) {
  auto found = by_pid_.find(pid);
  const process_map& map =
      found != by_pid_.end() ? found->second : add(pid, read_from_dir(pid), false);
  const symbols::perf_map_symbol* symbol = map.table.at(address);
  return symbol ? map.table.name(*symbol) : std::string_view{};
}

bool perf_maps::has_functions(pid_t pid) const {
  auto found = by_pid_.find(pid);
  return found != by_pid_.end() && found->second.table.size() != 0;
}

void perf_maps::forget_all_but(std::span<const pid_t> captured) {
  std::erase_if(by_pid_, [&](const auto& entry) {
    const auto& [pid, map] = entry;
    bool kept = map.captured && std::find(captured.begin(), captured.end(), pid) != captured.end();
    if (!kept) {
      symbols_ -= map.table.size();
      left_out_ -= map.table.left_out();
    }
    return !kept;
  });
}

}  // namespace arec::exporting
