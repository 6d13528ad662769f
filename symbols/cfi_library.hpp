// cfi_library: the libdw entry points symbols/ uses, to read an object's call frame information
// (.eh_frame) and its inlined functions (DWARF), loaded with dlopen when first needed (a chain
// completed, a function without symbols, a debug file read), so a recording without --off-cpu
// never maps libdw.
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
  // DWARF debug information, for the functions inlined at an address (inline_frames).
  decltype(&dwarf_begin_elf) begin_elf = nullptr;
  decltype(&dwarf_end) end = nullptr;
  decltype(&dwarf_addrdie) addrdie = nullptr;
  decltype(&dwarf_getscopes) getscopes = nullptr;
  decltype(&dwarf_tag) tag = nullptr;
  decltype(&dwarf_attr_integrate) attr_integrate = nullptr;
  decltype(&dwarf_formstring) formstring = nullptr;
};

// libdw, loaded once per process (thread-safe; a failed load is tried again by the next call).
// Throws std::runtime_error saying what needs it and what is missing.
const cfi_functions& libdw_cfi();

}  // namespace arec::symbols
