#include "export/recording_info.hpp"

#include <algorithm>
#include <cstring>
#include <span>

#include "base/unaligned.hpp"
#include "perf_data/build_id_feature.hpp"
#include "perf_data/format_error.hpp"
#include "perf_data/jitdumps_feature.hpp"
#include "perf_data/optional_feature.hpp"
#include "symbols/jitdump_symbols.hpp"

namespace arec::exporting {
std::unordered_map<std::string, perf_data::build_id> recorded_build_ids(
    const perf_data::feature_set& features) {
  std::unordered_map<std::string, perf_data::build_id> ids;
  const std::vector<std::byte>* payload = features.find(perf_data::feature_build_id);
  if (!payload) return ids;
  try {
    for (perf_data::build_id_entry& entry :
         perf_data::parse_build_id_payload(*payload, 0, "BUILD_ID"))
      if (!entry.filename.empty() && !entry.id.empty())
        ids.emplace(std::move(entry.filename), entry.id);
  } catch (const perf_data::format_error&) {
    // A damaged table only costs the names the build-id cache would have given.
  }
  return ids;
}

namespace {

std::vector<perf_data::captured_perf_map> captured_perf_maps(
    const perf_data::feature_set& features) {
  return perf_data::parsed_optional_feature(features, perf_data::feature_arec_perf_maps,
                        perf_data::parse_perf_maps_payload, "the perf-map feature");
}

perf_data::captured_jitdumps captured_jitdumps(const perf_data::feature_set& features) {
  return perf_data::parsed_optional_feature(features, perf_data::feature_arec_jitdumps,
                        perf_data::parse_jitdumps_payload, "the jitdump feature");
}

}  // namespace

recorded_jit recorded_jit_names(const perf_data::feature_set& features) {
  recorded_jit names{captured_perf_maps(features), {}};
  perf_data::captured_jitdumps jitdumps = captured_jitdumps(features);
  for (perf_data::captured_jitdump& dump : jitdumps.dumps) {
    auto same = std::ranges::find(names.perf_maps, dump.pid, &perf_data::captured_perf_map::pid);
    // Listed even when the dump names its code by time: a live export keeps what it lists.
    if (same == names.perf_maps.end())
      same = names.perf_maps.insert(names.perf_maps.end(), {dump.pid, {}});
    std::span<const std::byte> bytes = std::as_bytes(std::span{dump.bytes});
    std::optional<symbols::jit_code_timeline> timeline =
        symbols::jitdump_timeline(bytes, jitdumps.clocks);
    if (timeline) {
      names.by_time.processes.push_back({dump.pid, std::move(*timeline)});
    } else {
      same->text += symbols::jitdump_as_perf_map(bytes);
      ++names.by_time.untimed_dumps;
    }
  }
  names.by_time.dumps = std::move(jitdumps);
  return names;
}

std::vector<perf_data::process_container> recorded_containers(
    const perf_data::feature_set& features) {
  return perf_data::parsed_optional_feature(features, perf_data::feature_arec_container_ids,
                        perf_data::parse_container_ids_payload, "the container-id feature");
}

std::optional<std::int64_t> wall_clock_offset(const perf_data::feature_set& features) {
  const std::vector<std::byte>* payload = features.find(perf_data::feature_clock_data);
  if (!payload || payload->size() < 24) return std::nullopt;
  auto wall = base::load<std::uint64_t>(*payload, 8);
  auto clock = base::load<std::uint64_t>(*payload, 16);
  return static_cast<std::int64_t>(wall - clock);
}

std::pair<std::int64_t, std::int64_t> sample_wall_window(std::uint64_t first, std::uint64_t last,
                                                         std::optional<std::int64_t> offset,
                                                         std::int64_t file_end_ns) {
  std::int64_t start = 0, end = 0;
  if (offset && first != 0 && first <= last && !__builtin_add_overflow(first, *offset, &start) &&
      !__builtin_add_overflow(last, *offset, &end))
    return {start, end};
  std::uint64_t span = last > first ? last - first : 0;
  auto since_epoch = static_cast<std::uint64_t>(std::max<std::int64_t>(file_end_ns, 0));
  return {file_end_ns - static_cast<std::int64_t>(std::min(span, since_epoch)), file_end_ns};
}

}  // namespace arec::exporting
