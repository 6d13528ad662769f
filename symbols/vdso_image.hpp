// vdso_image: this process's own vdso, the ELF image the kernel maps into every (64-bit)
// process: the same bytes perf saves as [vdso] in its build-id cache.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "perf_data/build_id.hpp"

namespace arec::symbols {

// The whole [vdso] mapping of this process (as /proc/self/maps bounds it), or an empty span
// when there is none (a kernel without one).
std::span<const std::byte> own_vdso_image();

// The build-id of a 64-bit ELF image held in memory, from its PT_NOTE segments; nullopt when
// the image is not such an ELF or carries no build-id.
std::optional<perf_data::build_id> elf_image_build_id(std::span<const std::byte> image) noexcept;

}  // namespace arec::symbols
