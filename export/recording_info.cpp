#include "export/recording_info.hpp"

#include <cstring>
#include <span>

namespace arec::exporting {
namespace {

template <typename T>
T load(std::span<const std::byte> bytes, std::size_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

// perf's build_id_event: header (8), pid (4), 20 id bytes, size byte, 3 reserved, file name.
constexpr std::size_t id_offset = 12;
constexpr std::size_t size_offset = 32;
constexpr std::size_t name_offset = 36;

}  // namespace

std::unordered_map<std::string, io::build_id> recorded_build_ids(
    const io::perf::feature_set& features) {
  std::unordered_map<std::string, io::build_id> ids;
  const std::vector<std::byte>* payload = features.find(io::perf::feature_build_id);
  if (!payload) return ids;
  std::span<const std::byte> bytes{*payload};
  std::size_t at = 0;
  while (at + name_offset <= bytes.size()) {
    auto misc = load<std::uint16_t>(bytes, at + 4);
    auto size = load<std::uint16_t>(bytes, at + 6);
    if (size < name_offset || at + size > bytes.size()) break;
    std::span<const std::byte> entry = bytes.subspan(at, size);
    std::size_t id_size = (misc & io::perf::misc_build_id_size)
                              ? std::min<std::size_t>(load<std::uint8_t>(entry, size_offset), 20)
                              : 20;
    const char* name = reinterpret_cast<const char*>(entry.data() + name_offset);
    std::string file(name, ::strnlen(name, size - name_offset));
    io::build_id id = io::build_id::from(entry.subspan(id_offset, id_size));
    if (!file.empty() && !id.empty()) ids.emplace(std::move(file), id);
    at += size;
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
