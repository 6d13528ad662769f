// elf_build_id: reading the GNU build-id note from an ELF file (with libelf), from a raw note
// blob such as /sys/kernel/notes, and from a file holding such a blob.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "perf_data/build_id.hpp"

typedef struct Elf Elf;

namespace arec::symbols {

// The NT_GNU_BUILD_ID descriptor of the first "GNU" note in `notes` (a sequence of ELF notes:
// u32 namesz, descsz, type; name and descriptor each padded to 4 bytes). nullopt when there is
// none or the blob is truncated.
std::optional<perf_data::build_id> parse_build_id_notes(std::span<const std::byte> notes) noexcept;

// The build-id of the ELF file at `path`, from its SHT_NOTE sections (PT_NOTE segments when it
// has no section headers). nullopt when the file cannot be opened (it vanished, no permission),
// is not ELF, or has no build-id note: callers then simply have no build-id for it.
std::optional<perf_data::build_id> read_elf_build_id(const char* path);
// The same for an open file; nullopt also when it is not a regular file.
std::optional<perf_data::build_id> read_elf_build_id(int fd);
// The same for an ELF libelf has open (an image in memory: elf_memory).
std::optional<perf_data::build_id> read_elf_build_id(Elf* elf);

// The build-id in a file of raw notes (/sys/kernel/notes, /sys/module/M/notes/.note.gnu.build-id).
// nullopt when the file is missing or unreadable or holds no build-id.
std::optional<perf_data::build_id> read_notes_file_build_id(const char* path);

}  // namespace arec::symbols
