// The libdw loader: once loaded, every entry point dwarf_unwinder calls is bound, and the same
// table serves every later call (the unwinder's own tests call through it).
#include "export/dwarf_unwinder_library.hpp"

#include <gtest/gtest.h>

namespace arec::exporting {
namespace {

TEST(DwarfUnwinderLibrary, EveryEntryPointIsBoundOnceLoaded) {
  // A new entry point must be checked below too.
  static_assert(sizeof(dwfl_functions) == 13 * sizeof(void*));
  const dwfl_functions& f = libdw();
  EXPECT_NE(f.begin, nullptr);
  EXPECT_NE(f.end, nullptr);
  EXPECT_NE(f.report_elf, nullptr);
  EXPECT_NE(f.addrmodule, nullptr);
  EXPECT_NE(f.module_info, nullptr);
  EXPECT_NE(f.module_getelf, nullptr);
  EXPECT_NE(f.pid, nullptr);
  EXPECT_NE(f.attach_state, nullptr);
  EXPECT_NE(f.getthread_frames, nullptr);
  EXPECT_NE(f.frame_pc, nullptr);
  EXPECT_NE(f.thread_state_registers, nullptr);
  EXPECT_NE(f.standard_find_debuginfo, nullptr);
  EXPECT_NE(f.offline_section_address, nullptr);
  EXPECT_EQ(&libdw(), &f);
}

}  // namespace
}  // namespace arec::exporting
