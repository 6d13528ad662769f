#include "symbols/frame_rules.hpp"

#include <dwarf.h>
#include <gelf.h>
#include <libelf.h>

#include <cstdlib>

#include "host/mapped_file.hpp"
#include "symbols/cfi_library.hpp"

namespace arec::symbols {
namespace {

// x86-64 DWARF register numbers (psABI): rbp, rsp, and the return address column.
constexpr int dwarf_bp = 6;
constexpr int dwarf_sp = 7;
constexpr int dwarf_ra = 16;

struct frame_free {
  void operator()(Dwarf_Frame* frame) const noexcept { std::free(frame); }  // libdw malloc'ed it
};

// A register rule "saved at CFA + n" as libdw spells it: DW_OP_call_frame_cfa, then
// DW_OP_plus_uconst n (wrapping for a negative n) unless n is 0.
std::optional<std::int32_t> saved_at_cfa(const Dwarf_Op* ops, std::size_t count) {
  if (!ops || count == 0 || ops[0].atom != DW_OP_call_frame_cfa) return std::nullopt;
  if (count == 1) return 0;
  if (count == 2 && ops[1].atom == DW_OP_plus_uconst)
    return static_cast<std::int32_t>(static_cast<std::int64_t>(ops[1].number));
  return std::nullopt;
}

}  // namespace

std::unique_ptr<object_cfi> object_cfi::open(const std::string& path) {
#if defined(__x86_64__)
  const cfi_functions& dw = libdw_cfi();  // before any file is opened: a missing libdw throws
  std::unique_ptr<object_cfi> object(new object_cfi());
  object->fd_ = host::open_mapped_file(path, std::nullopt, {});
  if (!object->fd_ || elf_version(EV_CURRENT) == EV_NONE) return nullptr;
  object->elf_ = elf_begin(object->fd_.get(), ELF_C_READ_MMAP, nullptr);
  if (!object->elf_ || elf_kind(object->elf_) != ELF_K_ELF) return nullptr;
  std::size_t headers = 0;
  if (elf_getphdrnum(object->elf_, &headers) != 0) return nullptr;
  for (std::size_t i = 0; i < headers; ++i) {
    GElf_Phdr header;
    if (gelf_getphdr(object->elf_, static_cast<int>(i), &header) && header.p_type == PT_LOAD)
      object->segments_.push_back({header.p_offset, header.p_vaddr, header.p_filesz});
  }
  object->cfi_ = dw.getcfi_elf(object->elf_);
  if (!object->cfi_) return nullptr;
  // The whole file is mapped (ELF_C_READ_MMAP): the descriptor is not needed any more, and a
  // system-wide export may open thousands of objects.
  if (elf_cntl(object->elf_, ELF_C_FDDONE) == 0) object->fd_ = {};
  return object;
#else
  (void)path;
  return nullptr;
#endif
}

object_cfi::~object_cfi() {
  if (cfi_) libdw_cfi().cfi_end(cfi_);  // loaded: it made cfi_
  if (elf_) elf_end(elf_);
}

std::optional<std::uint64_t> object_cfi::vaddr_of_offset(std::uint64_t offset) const noexcept {
  for (const segment& s : segments_)
    if (offset >= s.offset && offset - s.offset < s.size) return offset - s.offset + s.vaddr;
  return std::nullopt;
}

frame_rule object_cfi::rule_at(std::uint64_t vaddr) {
  auto known = rules_.find(vaddr);
  if (known != rules_.end()) return known->second;
  frame_rule rule = read_rule(vaddr);
  rules_.emplace(vaddr, rule);
  return rule;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> object_cfi::function_range(
    std::uint64_t vaddr) const {
  const cfi_functions& dw = libdw_cfi();
  Dwarf_Frame* raw = nullptr;
  if (dw.cfi_addrframe(cfi_, vaddr, &raw) != 0 || !raw) return std::nullopt;
  std::unique_ptr<Dwarf_Frame, frame_free> frame(raw);
  Dwarf_Addr start = 0, end = 0;
  bool signal = false;
  if (dw.frame_info(frame.get(), &start, &end, &signal) < 0 || start >= end) return std::nullopt;
  return std::pair{start, end};
}

frame_rule object_cfi::read_rule(std::uint64_t vaddr) const {
  const cfi_functions& dw = libdw_cfi();
  frame_rule rule;
  Dwarf_Frame* raw = nullptr;
  if (dw.cfi_addrframe(cfi_, vaddr, &raw) != 0 || !raw) return rule;
  std::unique_ptr<Dwarf_Frame, frame_free> frame(raw);
  Dwarf_Op* cfa = nullptr;
  std::size_t cfa_ops = 0;
  if (dw.frame_cfa(frame.get(), &cfa, &cfa_ops) != 0 || cfa_ops != 1) return rule;
  int base_register = -1;
  std::int64_t offset = 0;
  if (cfa[0].atom == DW_OP_bregx) {
    base_register = static_cast<int>(cfa[0].number);
    offset = static_cast<std::int64_t>(cfa[0].number2);
  } else if (cfa[0].atom >= DW_OP_breg0 && cfa[0].atom <= DW_OP_breg31) {
    base_register = cfa[0].atom - DW_OP_breg0;
    offset = static_cast<std::int64_t>(cfa[0].number);
  }
  if (base_register != dwarf_sp && base_register != dwarf_bp) return rule;
  rule.cfa_base = base_register == dwarf_sp ? frame_rule::base::sp : frame_rule::base::bp;
  rule.cfa_offset = static_cast<std::int32_t>(offset);

  Dwarf_Op memory[3];
  Dwarf_Op* ops = nullptr;
  std::size_t count = 0;
  if (dw.frame_register(frame.get(), dwarf_ra, memory, &ops, &count) == 0) {
    if (std::optional<std::int32_t> at = saved_at_cfa(ops, count)) {
      rule.ra_saved = true;
      rule.ra_offset = *at;
    }
  }
  if (dw.frame_register(frame.get(), dwarf_bp, memory, &ops, &count) == 0)
    rule.saves_bp = saved_at_cfa(ops, count).has_value();
  return rule;
}

}  // namespace arec::symbols
