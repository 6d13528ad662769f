// cfi_library: the libdw entry points that read an object's call frame information (.eh_frame),
// loaded with dlopen when the first frame-pointer chain is completed (chain_completion), so a
// recording without --off-cpu and a plain export never map libdw.
#pragma once

#include <elfutils/libdw.h>

namespace arec::symbols {

struct cfi_functions {
  decltype(&dwarf_getcfi_elf) getcfi_elf = nullptr;
  decltype(&dwarf_cfi_end) cfi_end = nullptr;
  decltype(&dwarf_cfi_addrframe) cfi_addrframe = nullptr;
  decltype(&dwarf_frame_cfa) frame_cfa = nullptr;
  decltype(&dwarf_frame_register) frame_register = nullptr;
  decltype(&dwarf_frame_info) frame_info = nullptr;
};

// libdw, loaded once per process (thread-safe; a failed load is tried again by the next call).
// Throws std::runtime_error saying what needs it and what is missing.
const cfi_functions& libdw_cfi();

}  // namespace arec::symbols
