#include "perf_data/pipe_stream.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace arec::perf_data {
namespace {

constexpr std::uint64_t pipe_header_size = 16;  // what tells a reader it is a pipe stream
constexpr std::uint64_t event_update_name = 2;
// sizeof(struct perf_record_event_update) in perf 6.1: header, type, id and a 16-byte union;
// perf sizes a NAME update as that plus the name, rounded up to 8.
constexpr std::size_t event_update_fixed_size = 40;

std::size_t align8(std::size_t n) {
  return (n + 7) & ~std::size_t{7};
}

template <typename T>
void put(std::vector<std::byte>& out, const T& value) {
  const auto* bytes = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof value);
}

// A record header whose size must fit perf's u16.
void put_header(std::vector<std::byte>& out, std::uint32_t type, std::size_t size) {
  if (size > max_record_size)
    throw std::length_error("pipe stream: record of type " + std::to_string(type) + " needs " +
                            std::to_string(size) + " bytes, more than a record can hold");
  put(out, record_header{type, 0, static_cast<std::uint16_t>(size)});
}

void put_attr(std::vector<std::byte>& out, const event_entry& event) {
  perf_event_attr attr = attr_for_file(event.attr);
  put_header(out, record_header_attr,
             sizeof(record_header) + attr_size_written + 8 * event.ids.size());
  const auto* bytes = reinterpret_cast<const std::byte*>(&attr);
  out.insert(out.end(), bytes, bytes + attr_size_written);
  for (std::uint64_t id : event.ids) put(out, id);
}

// HEADER_FEATURE: u64 feature id, then the payload as in a file's feature section (unpadded).
void put_feature(std::vector<std::byte>& out, feature bit, std::span<const std::byte> payload) {
  put_header(out, record_header_feature, sizeof(record_header) + 8 + payload.size());
  put(out, std::uint64_t{bit});
  out.insert(out.end(), payload.begin(), payload.end());
}

void put_event_name(std::vector<std::byte>& out, const event_entry& event) {
  std::size_t size = align8(event_update_fixed_size + event.name.size() + 1);
  std::size_t start = out.size();
  put_header(out, record_event_update, size);
  put(out, event_update_name);
  put(out, event.ids.front());
  out.insert(out.end(), reinterpret_cast<const std::byte*>(event.name.data()),
             reinterpret_cast<const std::byte*>(event.name.data()) + event.name.size());
  out.resize(start + size);  // NUL and padding
}

// HEADER_TRACING_DATA: a 16-byte record holding the blob's padded size; the blob follows
// outside the record's size, as perf writes it.
void put_tracing_data(std::vector<std::byte>& out, std::span<const std::byte> blob) {
  std::size_t padded = align8(blob.size());
  put_header(out, record_header_tracing_data, 16);
  put(out, static_cast<std::uint32_t>(padded));
  put(out, std::uint32_t{0});
  out.insert(out.end(), blob.begin(), blob.end());
  out.resize(out.size() + padded - blob.size());
}

}  // namespace

bool travels_in_pipe(feature bit) {
  switch (bit) {
    case feature_tracing_data:
    case feature_build_id:
    case feature_cache:
    case feature_dir_format:
      return false;
    default:
      // BRANCH_STACK (15), AUXTRACE (18), STAT (19) and HYBRID_TOPOLOGY (30) are never written.
      return bit != 15 && bit != 18 && bit != 19 && bit != 30;
  }
}

std::vector<std::byte> pipe_stream_head(std::span<const event_entry> events,
                                        const feature_set& features) {
  std::vector<std::byte> out;
  put(out, file_magic);
  put(out, pipe_header_size);
  for (const event_entry& event : events) put_attr(out, event);
  for (const feature_set::entry& entry : features)
    if (travels_in_pipe(entry.bit)) put_feature(out, entry.bit, entry.payload);
  put_feature(out, feature_last_known, {});  // the end of the list
  for (const event_entry& event : events)
    if (!event.ids.empty() && !event.name.empty()) put_event_name(out, event);
  if (const std::vector<std::byte>* blob = features.find(feature_tracing_data))
    put_tracing_data(out, *blob);
  return out;
}

}  // namespace arec::perf_data
