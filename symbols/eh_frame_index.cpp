#include "symbols/eh_frame_index.hpp"

#include <gelf.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace arec::symbols {
namespace {

constexpr std::uint8_t pe_omit = 0xff;
constexpr std::uint8_t pe_datarel_sdata4 = 0x3b;  // the table's encoding in every linker's output

// The size of a value in pointer encoding `encoding` (its low nibble), 0 for one we do not read.
std::size_t encoded_size(std::uint8_t encoding) {
  switch (encoding & 0x0f) {
    case 0x02: case 0x0a: return 2;  // udata2, sdata2
    case 0x03: case 0x0b: return 4;  // udata4, sdata4
    case 0x04: case 0x0c: return 8;  // udata8, sdata8
    default: return 0;
  }
}

std::optional<std::uint64_t> unsigned_at(std::span<const std::byte> bytes, std::size_t at,
                                         std::size_t size) {
  if (size == 0 || at > bytes.size() || bytes.size() - at < size) return std::nullopt;
  std::uint64_t value = 0;
  std::memcpy(&value, bytes.data() + at, size);  // little-endian host, little-endian file (x86)
  return value;
}

}  // namespace

std::vector<std::uint64_t> parse_fde_starts(std::span<const std::byte> header,
                                            std::uint64_t vaddr) {
  // version, eh_frame_ptr encoding, fde_count encoding, table encoding, eh_frame_ptr, count.
  if (header.size() < 4 || header[0] != std::byte{1}) return {};
  auto frame_encoding = static_cast<std::uint8_t>(header[1]);
  auto count_encoding = static_cast<std::uint8_t>(header[2]);
  auto table_encoding = static_cast<std::uint8_t>(header[3]);
  if (table_encoding != pe_datarel_sdata4 || count_encoding == pe_omit) return {};
  std::size_t at = 4 + (frame_encoding == pe_omit ? 0 : encoded_size(frame_encoding));
  if (frame_encoding != pe_omit && encoded_size(frame_encoding) == 0) return {};
  std::optional<std::uint64_t> count = unsigned_at(header, at, encoded_size(count_encoding));
  if (!count) return {};
  at += encoded_size(count_encoding);
  // Eight bytes an entry (start, FDE): a count the section cannot hold is a damaged header.
  if (*count > (header.size() - at) / 8) return {};
  std::vector<std::uint64_t> starts;
  starts.reserve(*count);
  for (std::uint64_t i = 0; i < *count; ++i, at += 8) {
    auto relative = static_cast<std::int32_t>(*unsigned_at(header, at, 4));
    starts.push_back(vaddr + static_cast<std::uint64_t>(static_cast<std::int64_t>(relative)));
  }
  std::sort(starts.begin(), starts.end());  // sorted by the linker; checked, not trusted
  return starts;
}

std::vector<std::uint64_t> read_fde_starts(Elf* elf) {
  std::size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return {};
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr segment;
    if (!gelf_getphdr(elf, static_cast<int>(i), &segment) || segment.p_type != PT_GNU_EH_FRAME)
      continue;
    Elf_Data* data = elf_getdata_rawchunk(elf, static_cast<int64_t>(segment.p_offset),
                                          segment.p_filesz, ELF_T_BYTE);
    if (!data || !data->d_buf) return {};
    return parse_fde_starts({static_cast<const std::byte*>(data->d_buf), data->d_size},
                            segment.p_vaddr);
  }
  return {};
}

}  // namespace arec::symbols
