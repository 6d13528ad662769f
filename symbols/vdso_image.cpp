#include "symbols/vdso_image.hpp"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>

#include <array>
#include <cstring>

#include "host/proc_maps.hpp"
#include "symbols/elf_build_id.hpp"

namespace arec::symbols {

std::span<const std::byte> own_vdso_image() {
  // The vdso never moves or changes: one look for the life of the process.
  static const std::span<const std::byte> image = [] {
    io::small_file maps = io::small_file::open_at(AT_FDCWD, "/proc/self/maps");
    std::array<char, PATH_MAX + 128> buffer;
    host::maps_reader reader{maps, buffer};
    while (auto entry = reader.next())
      if (entry->path == "[vdso]")
        return std::span{reinterpret_cast<const std::byte*>(entry->start),
                         static_cast<std::size_t>(entry->end - entry->start)};
    return std::span<const std::byte>{};
  }();
  return image;
}

std::optional<perf_data::build_id> elf_image_build_id(std::span<const std::byte> image) noexcept {
  Elf64_Ehdr header;
  if (image.size() < sizeof header) return std::nullopt;
  std::memcpy(&header, image.data(), sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
    return std::nullopt;
  for (std::size_t i = 0; i < header.e_phnum; ++i) {
    std::size_t at = header.e_phoff + i * sizeof(Elf64_Phdr);
    if (at + sizeof(Elf64_Phdr) > image.size()) return std::nullopt;
    Elf64_Phdr segment;
    std::memcpy(&segment, image.data() + at, sizeof segment);
    if (segment.p_type != PT_NOTE || segment.p_offset + segment.p_filesz > image.size()) continue;
    if (auto id = parse_build_id_notes(image.subspan(segment.p_offset, segment.p_filesz)))
      return id;
  }
  return std::nullopt;
}

}  // namespace arec::symbols
