#include "perf_data/perf_maps_feature.hpp"

#include <zstd.h>

#include <stdexcept>
#include <string>

#include "perf_data/byte_cursor.hpp"
#include "perf_data/feature_encoder.hpp"

namespace arec::perf_data {
namespace {

constexpr std::uint32_t payload_version = 1;
constexpr int text_compression_level = 3;  // perf maps are repetitive text: ~10x at this level

std::vector<std::byte> compressed(std::string_view text) {
  std::vector<std::byte> out(ZSTD_compressBound(text.size()));
  std::size_t size =
      ZSTD_compress(out.data(), out.size(), text.data(), text.size(), text_compression_level);
  if (ZSTD_isError(size))
    throw std::runtime_error(std::string("zstd compression of a perf map: ") +
                             ZSTD_getErrorName(size));
  out.resize(size);
  return out;
}

std::size_t padding(std::size_t size) {
  return (8 - size % 8) % 8;
}

constexpr std::uint64_t map_header_bytes = 24;  // pid, 0, text bytes, stored bytes

}  // namespace

stored_perf_map store_perf_map(pid_t pid, std::string_view text) {
  return {pid, text.size(), compressed(text)};
}

bool perf_maps_room::take(const stored_perf_map& map) {
  std::uint64_t section = map_header_bytes + map.frame.size() + padding(map.frame.size());
  if (map.text_size > max_perf_map_bytes - text_ || section > max_feature_bytes - section_)
    return false;
  text_ += map.text_size;
  section_ += section;
  return true;
}

void put_stored_perf_map(feature_encoder& out, const stored_perf_map& map) {
  out.u32(static_cast<std::uint32_t>(map.pid));
  out.u32(0);
  out.u64(map.text_size);
  out.u64(map.frame.size());
  out.bytes(map.frame);
  std::vector<std::byte> zeros(padding(map.frame.size()));
  out.bytes(zeros);
}

captured_perf_map take_stored_perf_map(byte_cursor& in, std::uint64_t& text_left,
                                       std::string_view item, std::string_view feature,
                                       std::string_view file) {
  captured_perf_map map;
  std::uint64_t at = in.offset();
  map.pid = static_cast<pid_t>(in.value<std::uint32_t>());
  in.value<std::uint32_t>();
  auto text_size = in.value<std::uint64_t>();
  auto stored_size = in.value<std::uint64_t>();
  std::span<const std::byte> stored = in.take(stored_size);
  in.take(padding(static_cast<std::size_t>(stored_size)));
  std::string where = std::string(item) + " of the " + std::string(feature);
  if (text_size > text_left)
    throw format_error(file, at,
                       "the " + std::string(item) + "s of the " + std::string(feature) +
                           " hold more than " + std::to_string(max_perf_map_bytes) +
                           " bytes of text together");
  text_left -= text_size;
  // The writer's frames state their size: memory is sized only from a size the frame agrees on.
  if (ZSTD_getFrameContentSize(stored.data(), stored.size()) != text_size)
    throw format_error(file, at, "a " + where + " does not decompress");
  map.text.resize(static_cast<std::size_t>(text_size));
  std::size_t got = ZSTD_decompress(map.text.data(), map.text.size(), stored.data(), stored.size());
  if (ZSTD_isError(got) || got != text_size)
    throw format_error(file, at, "a " + where + " does not decompress");
  return map;
}

std::vector<std::byte> perf_maps_payload(std::span<const stored_perf_map> maps) {
  std::vector<const stored_perf_map*> fitting;
  perf_maps_room room;
  for (const stored_perf_map& map : maps)
    if (room.take(map)) fitting.push_back(&map);
  feature_encoder out;
  out.u32(payload_version);
  out.u32(static_cast<std::uint32_t>(fitting.size()));
  for (const stored_perf_map* kept : fitting) put_stored_perf_map(out, *kept);
  return out.take();
}

std::vector<std::byte> perf_maps_payload(std::span<const captured_perf_map> maps) {
  std::vector<stored_perf_map> stored;
  for (const captured_perf_map& map : maps) stored.push_back(store_perf_map(map.pid, map.text));
  return perf_maps_payload(stored);
}

std::vector<captured_perf_map> parse_perf_maps_payload(std::span<const std::byte> payload,
                                                       std::uint64_t base, std::string_view file) {
  byte_cursor in(payload, base, "the perf-map feature", file);
  if (in.value<std::uint32_t>() != payload_version)
    throw format_error(file, base, "the perf-map feature has an unknown version");
  auto count = in.value<std::uint32_t>();
  std::vector<captured_perf_map> maps;
  std::uint64_t text_left = max_perf_map_bytes;
  for (std::uint32_t i = 0; i < count; ++i)
    maps.push_back(take_stored_perf_map(in, text_left, "perf map", "perf-map feature", file));
  return maps;
}

}  // namespace arec::perf_data
