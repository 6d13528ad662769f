#include "perf_data/mapping_record.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>

#include "perf_data/record_cursor.hpp"

namespace arec::perf_data {

std::optional<mapping_record> parse_mapping_record(std::span<const std::byte> record) {
  record_header header{};
  if (record.size() < sizeof header) return std::nullopt;
  std::memcpy(&header, record.data(), sizeof header);
  if (header.type != PERF_RECORD_MMAP && header.type != PERF_RECORD_MMAP2) return std::nullopt;
  record_cursor fields{record.first(std::min<std::size_t>(header.size, record.size()))};
  mapping_record out;
  out.misc = header.misc;
  out.pid = fields.get<std::int32_t>();
  out.tid = fields.get<std::int32_t>();
  out.start = fields.get<std::uint64_t>();
  out.len = fields.get<std::uint64_t>();
  out.pgoff = fields.get<std::uint64_t>();
  if (header.type == PERF_RECORD_MMAP2) {
    if (header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
      auto size = fields.get<std::uint8_t>();
      fields.take(3);  // reserved
      auto bytes = fields.take(build_id::max_size);
      if (size > 0 && size <= bytes.size()) out.id = build_id::from(bytes.first(size));
    } else {
      out.major = fields.get<std::uint32_t>();
      out.minor = fields.get<std::uint32_t>();
      out.inode = fields.get<std::uint64_t>();
      out.inode_generation = fields.get<std::uint64_t>();
    }
    out.prot = fields.get<std::uint32_t>();
    out.flags = fields.get<std::uint32_t>();
  }
  out.name = fields.string();
  if (!fields.ok()) return std::nullopt;
  return out;
}

}  // namespace arec::perf_data
