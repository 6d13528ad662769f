// mini_debuginfo: the MiniDebugInfo of an ELF file (.gnu_debugdata), the xz-compressed ELF that
// Fedora, RHEL and UBI binaries carry with the .symtab of the functions .dynsym lacks (gdb's
// "MiniDebugInfo"). liblzma decompresses it, loaded with dlopen at the first such section, so a
// recording or an export without one never maps it (docs/dependencies.md).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "perf_data/build_id.hpp"

typedef struct Elf Elf;

namespace arec::symbols {

// The decompressed ELF image of `elf`'s .gnu_debugdata; nullopt when there is none, it is not
// xz, it decompresses to more than max_mini_debuginfo_bytes, or liblzma cannot be loaded.
std::optional<std::vector<std::byte>> read_mini_debuginfo(Elf* elf);
// The same for the ELF file open at `fd`.
std::optional<std::vector<std::byte>> read_mini_debuginfo(int fd);

// Whether a decompressed MiniDebugInfo image carries build-id `id` (the object's: find-debuginfo
// keeps the note), which perf requires of a `debug` file in its build-id cache.
bool has_build_id(std::vector<std::byte>& image, const perf_data::build_id& id);

// A bound on one object's decompressed MiniDebugInfo (Fedora's libc: ~1 MiB of symbols).
inline constexpr std::size_t max_mini_debuginfo_bytes = 64u << 20;

}  // namespace arec::symbols
