#include "symbols/jit_code_timeline.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <utility>

#include "symbols/jitdump_symbols.hpp"

namespace arec::symbols {
namespace {

constexpr std::uint64_t forever = std::numeric_limits<std::uint64_t>::max();
// Pieces looked at per lookup at most: a runtime's code overlaps only where it reused memory,
// a handful of times per address; a dump whose every piece overlaps is not worth an export's time.
constexpr std::size_t max_looked_at = 256;

// The code that holds its range now, by start (never overlapping: a newcomer cuts them).
struct live_code {
  std::uint64_t end;
  std::uint64_t from;
  std::string name;
  std::shared_ptr<const jit_line_table> lines;
  std::uint64_t code_start;
};
using live_map = std::map<std::uint64_t, live_code>;

}  // namespace

jit_code_timeline::jit_code_timeline(std::vector<jitdump_code> records) {
  std::ranges::stable_sort(records, {}, &jitdump_code::time);
  live_map live;
  // Ends the validity of whatever holds part of [start, end) at `time`, for that part only.
  auto cut = [&](std::uint64_t start, std::uint64_t end, std::uint64_t time) {
    auto at = live.lower_bound(start);
    if (at != live.begin() && std::prev(at)->second.end > start) --at;
    while (at != live.end() && at->first < end) {
      std::uint64_t piece_start = at->first;
      live_code code = std::move(at->second);
      at = live.erase(at);
      std::uint64_t shared_start = std::max(piece_start, start);
      std::uint64_t shared_end = std::min(code.end, end);
      if (code.from < time)
        pieces_.push_back(
            {shared_start, shared_end, code.from, time, code.name, code.lines, code.code_start});
      if (code.end > end) {
        live_code rest = code;
        rest.end = code.end;
        at = live.emplace_hint(at, end, std::move(rest));
      }
      if (piece_start < start) {
        code.end = start;
        live.emplace_hint(at, piece_start, std::move(code));
      }
    }
  };
  for (const jitdump_code& code : records) {
    if (code.size == 0 || code.start > forever - code.size) continue;  // no range
    if (code.moved_from && *code.moved_from <= forever - code.size)
      cut(*code.moved_from, *code.moved_from + code.size, code.time);
    cut(code.start, code.start + code.size, code.time);
    live.emplace(code.start, live_code{code.start + code.size, code.time, std::string(code.name),
                                       code.lines, code.start});
  }
  for (auto& [start, code] : live)
    pieces_.push_back({start, code.end, code.from, forever, std::move(code.name),
                       std::move(code.lines), code.code_start});
  std::ranges::stable_sort(pieces_, {}, &piece::start);
  reach_.reserve(pieces_.size());
  std::uint64_t reach = 0;
  for (const piece& each : pieces_) reach_.push_back(reach = std::max(reach, each.end));
}

const jit_code_timeline::piece* jit_code_timeline::find(std::uint64_t address,
                                                        std::uint64_t time) const {
  auto after = std::ranges::upper_bound(pieces_, address, {}, &piece::start);
  auto index = static_cast<std::size_t>(after - pieces_.begin());
  // Back from the last piece starting at or before `address`, while an earlier one may reach it.
  for (std::size_t looked = 0; index > 0 && reach_[index - 1] > address; --index) {
    if (++looked > max_looked_at) return nullptr;
    const piece& each = pieces_[index - 1];
    if (address < each.end && each.from <= time && time < each.until) return &each;
  }
  return nullptr;
}

std::string_view jit_code_timeline::name_at(std::uint64_t address, std::uint64_t time) const {
  const piece* found = find(address, time);
  return found ? std::string_view{found->name} : std::string_view{};
}

std::optional<jit_source_line> jit_code_timeline::line_at(std::uint64_t address,
                                                         std::uint64_t time) const {
  const piece* found = find(address, time);
  if (!found || !found->lines) return std::nullopt;
  return found->lines->at(address - found->code_start);
}

const void* jit_code_timeline::piece_at(std::uint64_t address, std::uint64_t time) const {
  return find(address, time);
}

bool jitdump_times_placeable(std::span<const std::byte> dump,
                             const perf_data::file_clocks& clocks) {
  auto known = [](const perf_data::clock_pair& pair) {
    return pair.monotonic_ns != 0 && pair.recording_ns != 0;
  };
  return !jitdump_times_are_arch(dump) && (known(clocks.start) || known(clocks.end));
}

std::vector<jitdump_code> jitdump_code_in_recording_time(std::span<const std::byte> dump,
                                                         const perf_data::file_clocks& clocks) {
  std::vector<jitdump_code> code = jitdump_code_records(dump);
  // A time the pairs cannot place (before the clock's start) names nothing: unnamed, not wrong.
  std::erase_if(code, [&](jitdump_code& record) {
    std::optional<std::uint64_t> time = perf_data::recording_time(clocks, record.time);
    record.time = time.value_or(0);
    return !time;
  });
  return code;
}

std::optional<jit_code_timeline> jitdump_timeline(std::span<const std::byte> dump,
                                                  const perf_data::file_clocks& clocks) {
  if (!jitdump_times_placeable(dump, clocks)) return std::nullopt;
  return jit_code_timeline(jitdump_code_in_recording_time(dump, clocks));
}

}  // namespace arec::symbols
