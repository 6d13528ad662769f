// jitdump_bytes: a jitdump's header and records as a runtime writes them, for the tests of its
// capture and of the names it gives (jitdump-specification.txt, version 1).
#pragma once

#include <cstdint>
#include <string>

namespace arec::test {

inline void put_u32(std::string& out, std::uint32_t value, bool swapped = false) {
  if (swapped) value = __builtin_bswap32(value);
  out.append(reinterpret_cast<const char*>(&value), 4);
}
inline void put_u64(std::string& out, std::uint64_t value, bool swapped = false) {
  if (swapped) value = __builtin_bswap64(value);
  out.append(reinterpret_cast<const char*>(&value), 8);
}

inline constexpr std::uint32_t jitdump_magic = 0x4A695444;

// The header of `pid`'s dump; `flags` bit 0: the timestamps are the arch's counter.
inline std::string jitdump_header(bool swapped = false, std::uint32_t magic = jitdump_magic,
                                  std::uint32_t pid = 1234, std::uint64_t flags = 0) {
  std::string out;
  put_u32(out, magic, swapped);
  put_u32(out, 1, swapped);   // version
  put_u32(out, 40, swapped);  // total_size
  put_u32(out, 62, swapped);  // EM_X86_64
  put_u32(out, 0, swapped);
  put_u32(out, pid, swapped);
  put_u64(out, 99, swapped);
  put_u64(out, flags, swapped);
  return out;
}

// A record's 16-byte prefix: id, total_size, timestamp.
inline std::string jitdump_record_prefix(std::uint32_t id, std::uint32_t size,
                                         std::uint64_t timestamp = 100, bool swapped = false) {
  std::string out;
  put_u32(out, id, swapped);
  put_u32(out, size, swapped);
  put_u64(out, timestamp, swapped);
  return out;
}

// A CODE_LOAD of `name` at `address` with `code` bytes of code, at `timestamp`.
inline std::string jitdump_code_load(const std::string& name, std::uint64_t code = 8,
                                     bool swapped = false, std::uint64_t address = 0x1000,
                                     std::uint64_t timestamp = 100, std::uint32_t pid = 1234,
                                     std::uint64_t index = 1) {
  std::string payload;
  put_u32(payload, pid, swapped);
  put_u32(payload, pid, swapped);
  put_u64(payload, address, swapped);  // vma
  put_u64(payload, address, swapped);  // code_addr
  put_u64(payload, code, swapped);
  put_u64(payload, index, swapped);  // code_index
  payload += name;
  payload.push_back('\0');
  payload.append(code, '\xcc');
  return jitdump_record_prefix(0, static_cast<std::uint32_t>(16 + payload.size()), timestamp,
                               swapped) +
         payload;
}

// `load` (a CODE_LOAD with `code` bytes of code, as jitdump_code_load writes it) as arec keeps
// it: without its code, its total_size saying so, its code_size unchanged.
inline std::string jitdump_kept(std::string load, std::uint64_t code = 8, bool swapped = false) {
  load.resize(load.size() - code);
  std::string size;
  put_u32(size, static_cast<std::uint32_t>(load.size()), swapped);
  load.replace(4, 4, size);
  return load;
}

// A CODE_MOVE of the code loaded with `index` from `from` to `to`, at `timestamp`.
inline std::string jitdump_code_move(std::uint64_t from, std::uint64_t to, std::uint64_t code,
                                     std::uint64_t timestamp, std::uint64_t index = 1,
                                     std::uint32_t pid = 1234) {
  std::string payload;
  put_u32(payload, pid);
  put_u32(payload, pid);
  put_u64(payload, to);  // vma
  put_u64(payload, from);
  put_u64(payload, to);
  put_u64(payload, code);
  put_u64(payload, index);
  return jitdump_record_prefix(1, static_cast<std::uint32_t>(16 + payload.size()), timestamp) +
         payload;
}

}  // namespace arec::test
