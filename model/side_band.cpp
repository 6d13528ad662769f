#include "model/side_band.hpp"

#include <linux/perf_event.h>

#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "perf_data/mapping_record.hpp"
#include "perf_data/perf_abi.hpp"
#include "perf_data/record_cursor.hpp"

namespace arec::model {
namespace {

// The MMAP or MMAP2 record `whole` (header included) is, as the model takes it; nullopt when it is
// malformed. The name views the record.
std::optional<mapping_event> parse_mapping(std::span<const std::byte> whole) {
  auto record = perf_data::parse_mapping_record(whole);
  if (!record) return std::nullopt;
  mapping_event event;
  event.pid = record->pid;
  event.tid = record->tid;
  event.start = record->start;
  event.len = record->len;
  event.pgoff = record->pgoff;
  event.id = {record->major, record->minor, record->inode, record->inode_generation, record->id};
  event.prot = record->prot;
  event.flags = record->flags;
  event.name = record->name;
  return event;
}

// The record cut to its header's size, with the header; nullopt when malformed.
std::optional<std::pair<perf_data::record_header, std::span<const std::byte>>> whole_record(
    std::span<const std::byte> record) {
  perf_data::record_header header;
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
  if (auto event = parse_mapping(body)) target.on_mapped_file(*event);
}

void apply_side_band(machine& target, std::span<const std::byte> record) {
  auto whole = whole_record(record);
  if (!whole) return;
  auto [header, body] = *whole;
  perf_data::record_cursor fields{body};
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
        target.on_fork(pid, ppid, tid, ptid, (header.misc & perf_data::misc_fork_exec) == 0);
      break;
    }
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      if (auto event = parse_mapping(body)) target.on_mmap(*event);
      break;
    default:
      break;
  }
}

}  // namespace arec::model
