#include "export/recording_info.hpp"

#include <cstring>
#include <span>

#include "io/perf_data/build_id_feature.hpp"
#include "io/perf_data/format_error.hpp"

namespace arec::exporting {
namespace {

template <typename T>
T load(std::span<const std::byte> bytes, std::size_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

}  // namespace

std::unordered_map<std::string, io::build_id> recorded_build_ids(
    const io::perf::feature_set& features) {
  std::unordered_map<std::string, io::build_id> ids;
  const std::vector<std::byte>* payload = features.find(io::perf::feature_build_id);
  if (!payload) return ids;
  try {
    for (io::perf::build_id_entry& entry :
         io::perf::parse_build_id_payload(*payload, 0, "BUILD_ID"))
      if (!entry.filename.empty() && !entry.id.empty())
        ids.emplace(std::move(entry.filename), entry.id);
  } catch (const io::perf::format_error&) {
    // A damaged table only costs the names the build-id cache would have given.
  }
  return ids;
}

std::optional<std::int64_t> wall_clock_offset(const io::perf::feature_set& features) {
  const std::vector<std::byte>* payload = features.find(io::perf::feature_clock_data);
  if (!payload || payload->size() < 24) return std::nullopt;
  auto wall = load<std::uint64_t>(*payload, 8);
  auto clock = load<std::uint64_t>(*payload, 16);
  return static_cast<std::int64_t>(wall - clock);
}

}  // namespace arec::exporting
