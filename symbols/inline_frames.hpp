// inline_frames: the functions a compiler inlined at an address, from an object's DWARF
// (.debug_info of the file itself or of its separate debug file), read with libdw (loaded on
// first use, symbols/cfi_library), as perf's --inline and addr2line -i show them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/unique_fd.hpp"

typedef struct Elf Elf;
typedef struct Dwarf Dwarf;

namespace arec::symbols {

class object_dwarf {
 public:
  // nullptr when the file cannot be opened or has no DWARF; throws std::runtime_error when
  // libdw cannot be loaded.
  static std::unique_ptr<object_dwarf> open(const std::string& path);
  ~object_dwarf();
  object_dwarf(const object_dwarf&) = delete;
  object_dwarf& operator=(const object_dwarf&) = delete;

  // The functions inlined at `vaddr` (an address of the file's own layout), innermost first,
  // as DWARF names them (the linkage name where there is one: mangled); empty when none.
  std::vector<std::string> inlined_at(std::uint64_t vaddr) const;

 private:
  object_dwarf() = default;
  io::unique_fd fd_;
  Elf* elf_ = nullptr;
  Dwarf* dwarf_ = nullptr;
};

}  // namespace arec::symbols
