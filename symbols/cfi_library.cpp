#include "symbols/cfi_library.hpp"

#include "base/shared_library.hpp"

namespace arec::symbols {
namespace {

cfi_functions bound_in(const base::shared_library& library) {
  cfi_functions f;
  f.getcfi_elf = library.function<decltype(dwarf_getcfi_elf)>("dwarf_getcfi_elf", "ELFUTILS_0.142");
  f.cfi_end = library.function<decltype(dwarf_cfi_end)>("dwarf_cfi_end", "ELFUTILS_0.142");
  f.cfi_addrframe =
      library.function<decltype(dwarf_cfi_addrframe)>("dwarf_cfi_addrframe", "ELFUTILS_0.142");
  f.frame_cfa = library.function<decltype(dwarf_frame_cfa)>("dwarf_frame_cfa", "ELFUTILS_0.142");
  f.frame_register =
      library.function<decltype(dwarf_frame_register)>("dwarf_frame_register", "ELFUTILS_0.142");
  f.frame_info = library.function<decltype(dwarf_frame_info)>("dwarf_frame_info", "ELFUTILS_0.142");
  f.begin_elf = library.function<decltype(dwarf_begin_elf)>("dwarf_begin_elf", "ELFUTILS_0.122");
  f.end = library.function<decltype(dwarf_end)>("dwarf_end", "ELFUTILS_0.122");
  f.addrdie = library.function<decltype(dwarf_addrdie)>("dwarf_addrdie", "ELFUTILS_0.122");
  f.getscopes = library.function<decltype(dwarf_getscopes)>("dwarf_getscopes", "ELFUTILS_0.122");
  f.tag = library.function<decltype(dwarf_tag)>("dwarf_tag", "ELFUTILS_0.122");
  f.attr_integrate =
      library.function<decltype(dwarf_attr_integrate)>("dwarf_attr_integrate", "ELFUTILS_0.122");
  f.formstring = library.function<decltype(dwarf_formstring)>("dwarf_formstring", "ELFUTILS_0.122");
  return f;
}

}  // namespace

const cfi_functions& libdw_cfi() {
  static const base::shared_library library(
      {"libdw.so.1"}, "completing frame-pointer stacks from CFI (elfutils' libdw, Debian: libdw1)");
  static const cfi_functions functions = bound_in(library);
  return functions;
}

}  // namespace arec::symbols
