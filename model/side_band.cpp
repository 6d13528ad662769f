#include "model/side_band.hpp"

#include <linux/perf_event.h>

#include <cstring>
#include <optional>
#include <utility>
#include <string_view>

#include "io/perf_data/perf_abi.hpp"
#include "io/perf_data/record_cursor.hpp"

namespace arec::model {
namespace {

// The MMAP or MMAP2 record whose body `fields` reads; nullopt when it is malformed. The name
// views the record.
std::optional<mapping_event> parse_mapping(const io::perf::record_header& header,
                                           io::perf::record_cursor& fields) {
  mapping_event event;
  event.pid = fields.get<std::int32_t>();
  event.tid = fields.get<std::int32_t>();
  event.start = fields.get<std::uint64_t>();
  event.len = fields.get<std::uint64_t>();
  event.pgoff = fields.get<std::uint64_t>();
  if (header.type == PERF_RECORD_MMAP2) {
    if (header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
      auto size = fields.get<std::uint8_t>();
      fields.take(3);  // reserved
      auto bytes = fields.take(io::build_id::max_size);
      if (size > 0 && size <= bytes.size())
        event.id.build_id = io::build_id::from(bytes.first(size));
    } else {
      event.id.major = fields.get<std::uint32_t>();
      event.id.minor = fields.get<std::uint32_t>();
      event.id.inode = fields.get<std::uint64_t>();
      event.id.inode_generation = fields.get<std::uint64_t>();
    }
    event.prot = fields.get<std::uint32_t>();
    event.flags = fields.get<std::uint32_t>();
  }
  event.name = fields.string();
  if (!fields.ok()) return std::nullopt;
  return event;
}

// The record cut to its header's size, with the header; nullopt when malformed.
std::optional<std::pair<io::perf::record_header, std::span<const std::byte>>> whole_record(
    std::span<const std::byte> record) {
  io::perf::record_header header;
  if (record.size() < sizeof header) return std::nullopt;
  std::memcpy(&header, record.data(), sizeof header);
  if (header.size > record.size()) return std::nullopt;
  return std::pair{header, record.first(header.size)};
}

}  // namespace

void note_mapped_file(machine& target, std::span<const std::byte> record) {
  auto whole = whole_record(record);
  if (!whole) return;
  auto [header, body] = *whole;
  if (header.type != PERF_RECORD_MMAP && header.type != PERF_RECORD_MMAP2) return;
  io::perf::record_cursor fields{body};
  if (auto event = parse_mapping(header, fields)) target.on_mapped_file(*event);
}

void apply_side_band(machine& target, std::span<const std::byte> record) {
  auto whole = whole_record(record);
  if (!whole) return;
  auto [header, body] = *whole;
  io::perf::record_cursor fields{body};
  switch (header.type) {
    case PERF_RECORD_COMM: {
      auto pid = fields.get<std::int32_t>();
      auto tid = fields.get<std::int32_t>();
      if (fields.ok()) target.on_comm(pid, tid, fields.string());
      break;
    }
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: {
      auto pid = fields.get<std::int32_t>();
      auto ppid = fields.get<std::int32_t>();
      auto tid = fields.get<std::int32_t>();
      auto ptid = fields.get<std::int32_t>();
      if (!fields.ok()) break;
      if (header.type == PERF_RECORD_EXIT)
        target.on_exit(pid, tid);
      else  // synthesized FORKs (misc FORK_EXEC) do not inherit the parent's maps, as in perf
        target.on_fork(pid, ppid, tid, ptid, (header.misc & io::perf::misc_fork_exec) == 0);
      break;
    }
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      if (auto event = parse_mapping(header, fields)) target.on_mmap(*event);
      break;
    default:
      break;
  }
}

}  // namespace arec::model
