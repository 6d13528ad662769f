// frame_rules: what an object's call frame information (.eh_frame) says about the frame at one
// address, reduced to what completing a frame-pointer chain needs: where the canonical frame
// address (CFA) is, where the return address was saved, and whether the frame saved rbp. Read
// once per object (libdw's CFI reader, loaded on first use) and cached per address.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/unique_fd.hpp"

typedef struct Elf Elf;
typedef struct Dwarf_CFI_s Dwarf_CFI;

namespace arec::symbols {

struct frame_rule {
  enum class base : std::uint8_t {
    none,  // no CFI here, or a CFA that is neither rsp+N nor rbp+N (a DWARF expression)
    sp,    // CFA = rsp + cfa_offset: a frameless function, a prologue or an epilogue
    bp,    // CFA = rbp + cfa_offset: a function with a frame pointer set up
  };
  base cfa_base = base::none;
  std::int32_t cfa_offset = 0;
  std::int32_t ra_offset = 0;  // the return address is saved at CFA + ra_offset
  bool ra_saved = false;       // false: no return address (the outermost frame) or not in memory
  bool saves_bp = false;       // the frame saved the caller's rbp: it may have changed rbp
};

// The CFI of one ELF file, opened for the life of the object (x86-64 only: elsewhere every rule
// is `none`).
class object_cfi {
 public:
  // nullptr when the file cannot be opened, is not ELF or has no .eh_frame; throws
  // std::runtime_error when libdw cannot be loaded.
  static std::unique_ptr<object_cfi> open(const std::string& path);
  ~object_cfi();
  object_cfi(const object_cfi&) = delete;
  object_cfi& operator=(const object_cfi&) = delete;

  // The rule at `vaddr`, an address of the file's own layout (cached: a known address costs
  // one hash look-up and allocates nothing).
  frame_rule rule_at(std::uint64_t vaddr);
  // The [start, end) of the FDE covering `vaddr`: one function (or one part of it, such as its
  // .cold block), which is what names code that has no symbol. nullopt where there is no FDE.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> function_range(
      std::uint64_t vaddr) const;
  // The address of the file's layout at file offset `offset`, nullopt outside its PT_LOADs.
  std::optional<std::uint64_t> vaddr_of_offset(std::uint64_t offset) const noexcept;

 private:
  struct segment {
    std::uint64_t offset = 0, vaddr = 0, size = 0;
  };
  object_cfi() = default;
  frame_rule read_rule(std::uint64_t vaddr) const;

  io::unique_fd fd_;
  Elf* elf_ = nullptr;
  Dwarf_CFI* cfi_ = nullptr;
  std::vector<segment> segments_;
  std::unordered_map<std::uint64_t, frame_rule> rules_;
};

}  // namespace arec::symbols
