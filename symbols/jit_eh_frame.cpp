#include "symbols/jit_eh_frame.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>

#include "symbols/joined_ranges.hpp"

namespace arec::symbols {
namespace {

// A DW_EH_PE pointer encoding arec can move: its low nibble the value's format, bit 0x10 the
// PC-relative application (the LSB's .eh_frame: linkers write 0x1b, pcrel | sdata4).
struct pointer_encoding {
  std::size_t width = 0;
  bool is_signed = false;
  bool pc_relative = false;
};

std::optional<pointer_encoding> encoding_of(std::uint8_t code) {
  pointer_encoding encoding;
  switch (code & 0x0f) {
    case 0x00: encoding.width = 8; break;  // absptr, on a 64-bit target
    case 0x02: encoding.width = 2; break;
    case 0x03: encoding.width = 4; break;
    case 0x04: encoding.width = 8; break;
    case 0x0a: encoding = {2, true}; break;
    case 0x0b: encoding = {4, true}; break;
    case 0x0c: encoding = {8, true}; break;
    default: return std::nullopt;  // LEB128 pointers: no runtime writes them
  }
  switch (code & 0xf0) {
    case 0x00: break;
    case 0x10: encoding.pc_relative = true; break;
    default: return std::nullopt;  // text-, data-, function-relative, aligned, indirect
  }
  return encoding;
}

// Reads what one entry holds, never past its end.
class entry_reader {
 public:
  explicit entry_reader(std::span<const std::byte> bytes) : bytes_(bytes) {}
  std::size_t at() const noexcept { return at_; }
  bool skip(std::size_t count) {
    if (count > bytes_.size() - at_) return false;
    at_ += count;
    return true;
  }
  std::optional<std::uint8_t> byte() {
    if (at_ >= bytes_.size()) return std::nullopt;
    return static_cast<std::uint8_t>(bytes_[at_++]);
  }
  std::optional<std::uint64_t> uleb() {
    std::uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      std::optional<std::uint8_t> next = byte();
      if (!next) return std::nullopt;
      value |= std::uint64_t{*next & 0x7fu} << shift;
      if ((*next & 0x80) == 0) return value;
    }
    return std::nullopt;
  }
  std::optional<std::string_view> string() {
    auto chars = reinterpret_cast<const char*>(bytes_.data() + at_);
    std::string_view rest(chars, bytes_.size() - at_);
    std::size_t end = rest.find('\0');
    if (end == std::string_view::npos) return std::nullopt;
    at_ += end + 1;
    return rest.substr(0, end);
  }

 private:
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
};

// The FDE pointer encoding of the CIE in `entry` (its length and id fields included), or
// nullopt for one arec does not move: only 'z', 'R', 'S' and 'B' augmentations, and an 'L'
// whose LSDA is omitted (V8's "zLR").
std::optional<pointer_encoding> cie_fde_encoding(std::span<const std::byte> entry) {
  entry_reader in(entry);
  std::optional<std::uint8_t> version;
  std::optional<std::string_view> augmentation;
  if (!in.skip(8) || !(version = in.byte()) || (*version != 1 && *version != 3) ||
      !(augmentation = in.string()) || !in.uleb() || !in.uleb())  // code and data alignment
    return std::nullopt;
  if (!(*version == 1 ? in.byte().has_value() : in.uleb().has_value()))  // return address column
    return std::nullopt;
  std::optional<pointer_encoding> fde = encoding_of(0x00);
  if (augmentation->empty()) return fde;
  if (augmentation->front() != 'z' || !in.uleb()) return std::nullopt;
  for (char letter : augmentation->substr(1)) {
    std::optional<std::uint8_t> code;
    if (letter == 'S' || letter == 'B') continue;
    if ((letter != 'R' && letter != 'L') || !(code = in.byte())) return std::nullopt;
    if (letter == 'L' && *code != 0xff) return std::nullopt;  // an LSDA pointer in every FDE
    if (letter == 'R' && !(fde = encoding_of(*code))) return std::nullopt;
  }
  return fde;
}

std::optional<std::int64_t> load_pointer(std::span<const std::byte> bytes, std::size_t at,
                                         pointer_encoding encoding) {
  if (at > bytes.size() || bytes.size() - at < encoding.width) return std::nullopt;
  std::uint64_t value = 0;
  std::memcpy(&value, bytes.data() + at, encoding.width);  // little-endian: the dump's order
  unsigned unused = 64 - 8 * static_cast<unsigned>(encoding.width);
  if (encoding.is_signed && unused != 0)
    return static_cast<std::int64_t>(value << unused) >> unused;
  return static_cast<std::int64_t>(value);
}

// Stores `value` at `at` when its format can hold it.
bool store_pointer(std::span<std::byte> bytes, std::size_t at, pointer_encoding encoding,
                   std::int64_t value) {
  if (encoding.width < 8) {
    unsigned bits = 8 * static_cast<unsigned>(encoding.width);
    std::int64_t low = encoding.is_signed ? -(std::int64_t{1} << (bits - 1)) : 0;
    std::int64_t high = encoding.is_signed ? (std::int64_t{1} << (bits - 1)) - 1
                                           : (std::int64_t{1} << bits) - 1;
    if (value < low || value > high) return false;
  }
  auto raw = static_cast<std::uint64_t>(value);
  std::memcpy(bytes.data() + at, &raw, encoding.width);
  return true;
}

// One function's entries, moved from `from` (where the runtime laid them out) to offset
// `offset` of a section at `address`, their FDEs added to `fdes`; nullopt when they must be left
// out (merge_jit_eh_frames).
std::optional<std::vector<std::byte>> moved_entries(const jitdump_code& function,
                                                    std::uint64_t from, std::uint64_t address,
                                                    std::size_t offset,
                                                    std::vector<jit_fde>& fdes) {
  const std::uint64_t to = address + offset;
  std::span<const std::byte> chunk = function.eh_frame;
  std::vector<std::byte> out;
  std::vector<jit_fde> found;  // offsets in the section
  std::map<std::size_t, pointer_encoding> cies;  // by offset in the chunk
  for (std::size_t at = 0; chunk.size() - at >= 8;) {
    std::uint32_t length = 0, id = 0;
    std::memcpy(&length, chunk.data() + at, 4);
    if (length == 0) break;  // the terminator: this section gets one at its end
    if (length == 0xffffffff || length < 4 || length > chunk.size() - at - 4) return std::nullopt;
    std::memcpy(&id, chunk.data() + at + 4, 4);
    std::span<const std::byte> entry = chunk.subspan(at, 4 + std::size_t{length});
    std::size_t out_at = out.size();
    out.insert(out.end(), entry.begin(), entry.end());
    if (id == 0) {
      std::optional<pointer_encoding> encoding = cie_fde_encoding(entry);
      if (!encoding) return std::nullopt;
      cies[at] = *encoding;
    } else {
      auto cie = id <= at + 4 ? cies.find(at + 4 - id) : cies.end();
      if (cie == cies.end()) return std::nullopt;
      pointer_encoding encoding = cie->second;
      std::optional<std::int64_t> begin = load_pointer(entry, 8, encoding);
      std::optional<std::int64_t> range =
          load_pointer(entry, 8 + encoding.width, {encoding.width, encoding.is_signed, false});
      if (!begin || !range) return std::nullopt;
      std::uint64_t target = static_cast<std::uint64_t>(*begin) + (encoding.pc_relative ? from + at + 8 : 0);
      std::uint64_t end = function.start + function.size;
      if (target < function.start || target >= end || *range <= 0 ||
          static_cast<std::uint64_t>(*range) > end - target)
        return std::nullopt;
      std::int64_t moved = encoding.pc_relative
                               ? static_cast<std::int64_t>(target - (to + out_at + 8))
                               : static_cast<std::int64_t>(target);
      if (!store_pointer(std::span{out}.subspan(out_at), 8, encoding, moved)) return std::nullopt;
      found.push_back({target, offset + out_at});
    }
    at += entry.size();
  }
  if (found.empty()) return std::nullopt;
  fdes.insert(fdes.end(), found.begin(), found.end());
  return out;
}

// For each record of `code`, whether a later one was loaded over part of its range: its code
// was gone from there by then, and the later one's entries describe what is.
std::vector<bool> superseded(std::span<const jitdump_code> code) {
  std::vector<bool> gone(code.size(), false);
  joined_ranges later;  // the ranges of the records after the one looked at
  for (std::size_t i = code.size(); i-- > 0;) {
    std::uint64_t start = code[i].start, end = start + code[i].size;
    if (code[i].size != 0 && end > start) gone[i] = later.add(start, end);
  }
  return gone;
}

}  // namespace

jit_eh_frame merge_jit_eh_frames(std::span<const jitdump_code> code, std::uint64_t low,
                                 std::uint64_t high, std::uint64_t address) {
  jit_eh_frame merged;
  std::vector<bool> gone = superseded(code);
  for (std::size_t i = 0; i < code.size(); ++i) {
    const jitdump_code& function = code[i];
    if (function.eh_frame.empty() || gone[i] || function.start < low || function.start >= high ||
        function.size > high - function.start)
      continue;
    // Where the runtime put the entries: after the code, at the next multiple of 8.
    std::uint64_t from = function.start + ((function.size + 7) & ~std::uint64_t{7});
    std::optional<std::vector<std::byte>> moved =
        moved_entries(function, from, address, merged.bytes.size(), merged.fdes);
    if (!moved) {
      ++merged.refused;
      continue;
    }
    merged.bytes.insert(merged.bytes.end(), moved->begin(), moved->end());
    ++merged.functions;
  }
  if (!merged.bytes.empty()) merged.bytes.resize(merged.bytes.size() + 4);  // the terminator
  return merged;
}

std::vector<std::byte> jit_eh_frame_header(const jit_eh_frame& frames, std::uint64_t frames_at,
                                           std::uint64_t address) {
  std::vector<std::pair<std::int64_t, std::int64_t>> table;  // relative to `address`
  auto relative = [&](std::uint64_t to) { return static_cast<std::int64_t>(to - address); };
  for (const jit_fde& fde : frames.fdes)
    table.emplace_back(relative(fde.first), relative(frames_at + fde.offset));
  std::ranges::sort(table);
  std::vector<std::byte> out(12 + 8 * table.size());
  std::span<std::byte> bytes{out};
  const std::uint8_t encodings[4] = {1, 0x1b, 0x03, 0x3b};  // version, pcrel, udata4, datarel
  std::memcpy(out.data(), encodings, 4);
  pointer_encoding sdata4{4, true, false}, udata4{4, false, false};
  bool fits = store_pointer(bytes, 4, sdata4, relative(frames_at) - 4) &&
              store_pointer(bytes, 8, udata4, static_cast<std::int64_t>(table.size()));
  for (std::size_t i = 0; fits && i < table.size(); ++i)
    fits = store_pointer(bytes, 12 + 8 * i, sdata4, table[i].first) &&
           store_pointer(bytes, 16 + 8 * i, sdata4, table[i].second);
  if (!fits) out.clear();
  return out;
}

}  // namespace arec::symbols
