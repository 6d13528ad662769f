// dwarf_unwinder_library: the libdwfl entry points dwarf_unwinder calls, loaded when the first
// --call-graph dwarf sample is unwound (base::shared_library), so that a recording does not map
// libdw (~0.5 MiB of every recording's RSS when it was linked). Types and constants come from
// <elfutils/libdwfl.h>; each function is bound at the symbol version those headers declare.
#pragma once

#include <elfutils/libdwfl.h>

namespace arec::exporting {

struct dwfl_functions {
  decltype(&dwfl_begin) begin = nullptr;
  decltype(&dwfl_end) end = nullptr;
  decltype(&dwfl_report_elf) report_elf = nullptr;
  decltype(&dwfl_addrmodule) addrmodule = nullptr;
  decltype(&dwfl_module_info) module_info = nullptr;
  decltype(&dwfl_module_getelf) module_getelf = nullptr;
  decltype(&dwfl_pid) pid = nullptr;
  decltype(&dwfl_attach_state) attach_state = nullptr;
  decltype(&dwfl_getthread_frames) getthread_frames = nullptr;
  decltype(&dwfl_frame_pc) frame_pc = nullptr;
  decltype(&dwfl_thread_state_registers) thread_state_registers = nullptr;
  // The standard callbacks of an offline Dwfl_Callbacks.
  decltype(&dwfl_standard_find_debuginfo) standard_find_debuginfo = nullptr;
  decltype(&dwfl_offline_section_address) offline_section_address = nullptr;
};

// libdw, loaded once per process (thread-safe; a failed load is tried again by the next call).
// Throws std::runtime_error saying what needs it and what is missing.
const dwfl_functions& libdw();

}  // namespace arec::exporting
