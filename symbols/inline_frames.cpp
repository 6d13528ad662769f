#include "symbols/inline_frames.hpp"

#include <dwarf.h>
#include <libelf.h>

#include <cstdlib>

#include "host/mapped_file.hpp"
#include "symbols/cfi_library.hpp"

namespace arec::symbols {
namespace {

// The name a subprogram or inlined subroutine goes by, following its abstract origin.
const char* name_of(const cfi_functions& dw, Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  for (int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name})
    if (dw.attr_integrate(die, name, &attribute))
      if (const char* text = dw.formstring(&attribute)) return text;
  return nullptr;
}

}  // namespace

std::unique_ptr<object_dwarf> object_dwarf::open(const std::string& path) {
  const cfi_functions& dw = libdw_cfi();  // before any file is opened: a missing libdw throws
  std::unique_ptr<object_dwarf> object(new object_dwarf());
  object->fd_ = host::open_mapped_file(path, std::nullopt, {});
  if (!object->fd_ || elf_version(EV_CURRENT) == EV_NONE) return nullptr;
  object->elf_ = elf_begin(object->fd_.get(), ELF_C_READ_MMAP, nullptr);
  if (!object->elf_ || elf_kind(object->elf_) != ELF_K_ELF) return nullptr;
  object->dwarf_ = dw.begin_elf(object->elf_, DWARF_C_READ, nullptr);
  if (!object->dwarf_) return nullptr;  // no .debug_info
  // The whole file is mapped: its descriptor is not needed any more (thousands of objects).
  if (elf_cntl(object->elf_, ELF_C_FDDONE) == 0) object->fd_ = {};
  return object;
}

object_dwarf::~object_dwarf() {
  if (dwarf_) libdw_cfi().end(dwarf_);  // loaded: it made dwarf_
  if (elf_) elf_end(elf_);
}

std::vector<std::string> object_dwarf::inlined_at(std::uint64_t vaddr) const {
  const cfi_functions& dw = libdw_cfi();
  std::vector<std::string> names;
  Dwarf_Die unit;
  if (!dw.addrdie(dwarf_, vaddr, &unit)) return names;
  Dwarf_Die* scopes = nullptr;
  int count = dw.getscopes(&unit, vaddr, &scopes);
  // Innermost first: the inlined subroutines, up to the function that holds them.
  for (int i = 0; i < count; ++i) {
    int tag = dw.tag(&scopes[i]);
    if (tag == DW_TAG_subprogram) break;
    if (tag != DW_TAG_inlined_subroutine) continue;
    const char* name = name_of(dw, &scopes[i]);
    names.emplace_back(name ? name : "");
  }
  std::free(scopes);  // libdw malloc'ed it
  // A chain with an unnamed link would put a frame of no name in a stack: none rather than that.
  for (const std::string& name : names)
    if (name.empty()) return {};
  return names;
}

}  // namespace arec::symbols
