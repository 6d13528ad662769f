#include "export/dwarf_unwinder_library.hpp"

#include "base/shared_library.hpp"

namespace arec::exporting {
namespace {

template <typename Function>
void bind(const base::shared_library& library, Function*& slot, const char* name,
          const char* version) {
  slot = library.function<Function>(name, version);
}

// At the versions a link against these headers binds (elfutils keeps an older dwfl_report_elf,
// without add_p_vaddr, at ELFUTILS_0.122).
dwfl_functions bound_in(const base::shared_library& library) {
  dwfl_functions f;
  bind(library, f.begin, "dwfl_begin", "ELFUTILS_0.122");
  bind(library, f.end, "dwfl_end", "ELFUTILS_0.122");
  bind(library, f.report_elf, "dwfl_report_elf", "ELFUTILS_0.156");
  bind(library, f.addrmodule, "dwfl_addrmodule", "ELFUTILS_0.122");
  bind(library, f.module_info, "dwfl_module_info", "ELFUTILS_0.122");
  bind(library, f.module_getelf, "dwfl_module_getelf", "ELFUTILS_0.122");
  bind(library, f.pid, "dwfl_pid", "ELFUTILS_0.158");
  bind(library, f.attach_state, "dwfl_attach_state", "ELFUTILS_0.158");
  bind(library, f.getthread_frames, "dwfl_getthread_frames", "ELFUTILS_0.158");
  bind(library, f.frame_pc, "dwfl_frame_pc", "ELFUTILS_0.158");
  bind(library, f.thread_state_registers, "dwfl_thread_state_registers", "ELFUTILS_0.158");
  bind(library, f.standard_find_debuginfo, "dwfl_standard_find_debuginfo", "ELFUTILS_0.122");
  bind(library, f.offline_section_address, "dwfl_offline_section_address", "ELFUTILS_0.122");
  return f;
}

}  // namespace

const dwfl_functions& libdw() {
  // C++ guards each static's initialization across threads; one that threw is tried again.
  static const base::shared_library library(
      {"libdw.so.1"}, "exporting --call-graph dwarf samples (elfutils' libdw, Debian: libdw1)");
  static const dwfl_functions functions = bound_in(library);
  return functions;
}

}  // namespace arec::exporting
