// map: one mapping of a process (or of the kernel): the address range [start, end), where in
// its dso the range starts, and the dso, shared with every other map of the same file.
#pragma once

#include <cstdint>
#include <memory>

#include "model/dso.hpp"

namespace arec::model {

struct map {
  std::uint64_t start = 0;
  std::uint64_t end = 0;    // one past the last byte
  std::uint64_t pgoff = 0;  // file offset of `start`
  std::uint32_t prot = 0;
  std::uint32_t flags = 0;
  std::shared_ptr<dso> object;  // nullptr for anonymous memory

  bool contains(std::uint64_t address) const noexcept { return address >= start && address < end; }
};

}  // namespace arec::model
