// jitdump_bytes: a jitdump's header and records as a runtime writes them, for the tests of its
// capture and of the names it gives (jitdump-specification.txt, version 1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

// The .eh_frame a runtime writes for a function at `address` of `code` bytes that moves the
// stack pointer down 8 bytes after its first 4 (a CIE "zR" whose FDEs point PC-relative, sdata4;
// then one FDE and a terminator), laid out for start + code rounded up to 8. `r_encoding` is
// the CIE's pointer encoding, `augmentation` its augmentation string (its data: one byte of
// `r_encoding` per letter after the 'z'), and `begin_shift` moves the FDE's start away from
// the function.
inline std::string jitdump_eh_frame(std::uint64_t address, std::uint64_t code,
                                    std::uint8_t r_encoding = 0x1b,
                                    const std::string& augmentation = "zR",
                                    std::int64_t begin_shift = 0) {
  std::string cie;
  put_u32(cie, 0);  // CIE id
  cie += '\x01';
  cie += augmentation;
  cie += '\0';
  cie += "\x01\x78\x10";  // code alignment 1, data alignment -8, return address column 16
  std::string letters = augmentation.empty() ? "" : augmentation.substr(1);
  cie += static_cast<char>(letters.size());
  cie.append(letters.size(), static_cast<char>(r_encoding));
  cie += "\x0c\x07\x08\x90\x01";  // cfa = rsp + 8; return address at cfa - 8
  while ((cie.size() + 4) % 8 != 0) cie += '\0';
  std::string out;
  put_u32(out, static_cast<std::uint32_t>(cie.size()));
  out += cie;
  std::uint64_t eh_frame = address + ((code + 7) & ~std::uint64_t{7});
  std::size_t fde_at = out.size();
  std::string fde;
  put_u32(fde, static_cast<std::uint32_t>(fde_at + 4));  // back to the CIE
  std::uint64_t begin = address + static_cast<std::uint64_t>(begin_shift) - (eh_frame + fde_at + 8);
  put_u32(fde, static_cast<std::uint32_t>(begin));
  put_u32(fde, static_cast<std::uint32_t>(code));
  fde += '\0';              // no augmentation data
  fde += "\x44\x0e\x10";  // after 4 bytes: cfa = rsp + 16
  while ((fde.size() + 4) % 8 != 0) fde += '\0';
  put_u32(out, static_cast<std::uint32_t>(fde.size()));
  out += fde;
  put_u32(out, 0);  // the terminator
  return out;
}

// An UNWINDING_INFO record holding `eh_frame` and an .eh_frame_hdr of `header` bytes after it
// (zeros: arec does not read it).
inline std::string jitdump_unwinding_info(const std::string& eh_frame, std::uint64_t header = 20,
                                          std::uint64_t timestamp = 100) {
  std::string payload;
  put_u64(payload, eh_frame.size() + header);  // unwinding_size
  put_u64(payload, header);                    // eh_frame_hdr_size
  put_u64(payload, eh_frame.size() + header);  // mapped_size
  payload += eh_frame;
  payload.append(header, '\0');
  while (payload.size() % 8 != 0) payload += '\0';
  return jitdump_record_prefix(4, static_cast<std::uint32_t>(16 + payload.size()), timestamp) +
         payload;
}

// One DEBUG_INFO entry: its address, line and file ("\xff": the previous entry's).
struct jitdump_line {
  std::uint64_t address;
  std::uint32_t line;
  std::string file;
};

// A DEBUG_INFO record for the code at `code` with `entries`.
inline std::string jitdump_debug_info(std::uint64_t code, const std::vector<jitdump_line>& entries,
                                      std::uint64_t timestamp = 100) {
  std::string payload;
  put_u64(payload, code);
  put_u64(payload, entries.size());
  for (const jitdump_line& entry : entries) {
    put_u64(payload, entry.address);
    put_u32(payload, entry.line);
    put_u32(payload, 0);  // discriminator
    payload += entry.file;
    payload += '\0';
  }
  while (payload.size() % 8 != 0) payload += '\0';
  return jitdump_record_prefix(2, static_cast<std::uint32_t>(16 + payload.size()), timestamp) +
         payload;
}

}  // namespace arec::test
