#include "perf_data/build_id_feature.hpp"

#include <cstring>

#include "perf_data/byte_cursor.hpp"
#include "perf_data/feature_encoder.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::perf_data {
namespace {

constexpr std::size_t entry_header_bytes = 36;  // type, misc, size, pid, 20 id bytes, size + 3
constexpr std::size_t name_alignment = 64;
// perf reads the name into a PATH_MAX buffer on its stack without checking the length.
constexpr std::size_t max_name_bytes = 4096;

// perf's writers before the size byte: the id's length is where its zeros start.
std::uint8_t length_without_trailing_zeros(const build_id& id) {
  std::uint8_t length = build_id::max_size;
  while (length > 0 && id.bytes[length - 1] == 0) --length;
  return length;
}

}  // namespace

std::vector<std::byte> build_id_payload(std::span<const build_id_entry> entries) {
  feature_encoder out;
  for (const build_id_entry& entry : entries) {
    std::size_t name_size =
        (entry.filename.size() + 1 + name_alignment - 1) / name_alignment * name_alignment;
    out.u32(0);  // type: unused inside the feature section
    std::uint16_t misc = entry.cpumode | misc_build_id_size;
    std::uint16_t size = static_cast<std::uint16_t>(entry_header_bytes + name_size);
    out.u32(static_cast<std::uint32_t>(misc) | static_cast<std::uint32_t>(size) << 16);
    out.u32(static_cast<std::uint32_t>(-1));  // pid: HOST_KERNEL_ID, never a process pid
    out.bytes(std::as_bytes(std::span{entry.id.bytes}));
    out.u32(entry.id.size);  // u8 size, then three reserved zero bytes (little endian)
    std::vector<std::byte> name(name_size, std::byte{0});
    std::memcpy(name.data(), entry.filename.data(), entry.filename.size());
    out.bytes(name);
  }
  return out.take();
}

std::vector<build_id_entry> parse_build_id_payload(std::span<const std::byte> payload,
                                                   std::uint64_t offset, std::string_view file) {
  std::vector<build_id_entry> entries;
  byte_cursor in(payload, offset, "a BUILD_ID entry", file);
  while (in.offset() < offset + payload.size()) {
    std::uint64_t start = in.offset();
    in.value<std::uint32_t>();  // type
    auto misc = in.value<std::uint16_t>();
    auto size = in.value<std::uint16_t>();
    if (size < entry_header_bytes + 1)
      throw format_error(file, start,
                         "a BUILD_ID entry of " + std::to_string(size) +
                             " bytes, less than its header and a name");
    in.value<std::int32_t>();  // pid
    build_id_entry entry;
    std::memcpy(entry.id.bytes.data(), in.take(build_id::max_size).data(), build_id::max_size);
    auto declared = in.value<std::uint32_t>() & 0xffu;
    if ((misc & misc_build_id_size) && declared > build_id::max_size)
      throw format_error(file, start,
                         "a BUILD_ID entry whose build-id has " + std::to_string(declared) +
                             " bytes, more than 20");
    if (size - entry_header_bytes > max_name_bytes)
      throw format_error(file, start,
                         "a BUILD_ID entry whose filename takes " +
                             std::to_string(size - entry_header_bytes) + " bytes, more than 4096");
    entry.id.size = (misc & misc_build_id_size) ? static_cast<std::uint8_t>(declared)
                                                : length_without_trailing_zeros(entry.id);
    entry.cpumode = misc & ~misc_build_id_size;
    auto name = in.take(size - entry_header_bytes);
    const char* chars = reinterpret_cast<const char*>(name.data());
    const void* nul = std::memchr(chars, 0, name.size());
    if (!nul) throw format_error(file, start, "a BUILD_ID entry whose filename has no NUL");
    entry.filename.assign(chars, static_cast<const char*>(nul));
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace arec::perf_data
