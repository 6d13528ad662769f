// dwarf_unwinder on this very process: its registers and a copy of its stack taken two calls
// deep, its maps from /proc/self/maps, as a --call-graph dwarf sample would carry them; libdwfl
// must find both callers. And a sample it cannot unwind keeps its IP.
#include "export/dwarf_unwinder.hpp"

#include <gtest/gtest.h>
#include <sys/types.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <sstream>

#include "export/symbolizer.hpp"

namespace arec::exporting {
namespace {

#if defined(__x86_64__)

// The sample's registers in perf's x86_64 order for sample_regs_user 0xff0fff: AX BX CX DX SI
// DI BP SP IP FLAGS CS SS, then R8-R15.
struct captured {
  std::array<std::uint64_t, 20> registers{};
  std::vector<std::byte> stack;
};

// The end of the mapping holding `address` in /proc/self/maps (the stack's top), or 0.
std::uint64_t mapping_end(std::uint64_t address) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::uint64_t start = 0, end = 0;
    char dash = 0;
    std::istringstream(line) >> std::hex >> start >> dash >> end;
    if (address >= start && address < end) return end;
  }
  return 0;
}

// Byte by byte, unseen by ASan: the copy crosses other frames' redzones, as the kernel's does.
__attribute__((no_sanitize("address", "hwaddress"))) void copy_stack(std::byte* to,
                                                                     std::uint64_t from,
                                                                     std::size_t size) {
  const volatile std::byte* source = reinterpret_cast<const volatile std::byte*>(from);
  for (std::size_t i = 0; i < size; ++i) to[i] = source[i];
}

__attribute__((noinline)) void capture_here(captured& out) {
  ucontext_t context;
  getcontext(&context);  // the state as if getcontext had just returned here
  const greg_t* g = context.uc_mcontext.gregs;
  out.registers = {static_cast<std::uint64_t>(g[REG_RAX]),
                   static_cast<std::uint64_t>(g[REG_RBX]),
                   static_cast<std::uint64_t>(g[REG_RCX]),
                   static_cast<std::uint64_t>(g[REG_RDX]),
                   static_cast<std::uint64_t>(g[REG_RSI]),
                   static_cast<std::uint64_t>(g[REG_RDI]),
                   static_cast<std::uint64_t>(g[REG_RBP]),
                   static_cast<std::uint64_t>(g[REG_RSP]),
                   static_cast<std::uint64_t>(g[REG_RIP]),
                   0,
                   0,
                   0,
                   static_cast<std::uint64_t>(g[REG_R8]),
                   static_cast<std::uint64_t>(g[REG_R9]),
                   static_cast<std::uint64_t>(g[REG_R10]),
                   static_cast<std::uint64_t>(g[REG_R11]),
                   static_cast<std::uint64_t>(g[REG_R12]),
                   static_cast<std::uint64_t>(g[REG_R13]),
                   static_cast<std::uint64_t>(g[REG_R14]),
                   static_cast<std::uint64_t>(g[REG_R15])};
  // The kernel copies up to 8 KB from SP, less near the stack's top.
  std::uint64_t sp = out.registers[7];
  std::size_t size = static_cast<std::size_t>(std::min<std::uint64_t>(8192, mapping_end(sp) - sp));
  out.stack.resize(size);
  copy_stack(out.stack.data(), sp, size);
}

// Two callers with names the test looks for; the empty asm after each call keeps it a call.
__attribute__((noinline)) void unwind_test_inner(captured& out) {
  capture_here(out);
  asm volatile("");
}
__attribute__((noinline)) void unwind_test_outer(captured& out) {
  unwind_test_inner(out);
  asm volatile("");
}

// This process's file-backed mappings, as MMAP2 records would have built them.
std::shared_ptr<model::maps> own_maps() {
  auto space = std::make_shared<model::maps>();
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream row(line);
    std::uint64_t start = 0, end = 0, offset = 0;
    char dash = 0;
    std::string perms, device, inode, path;
    row >> std::hex >> start >> dash >> end >> perms >> offset >> device >> inode >> path;
    if (path.empty() || path.front() != '/') continue;
    model::map entry;
    entry.start = start;
    entry.end = end;
    entry.pgoff = offset;
    entry.object = std::make_shared<model::dso>(path, model::dso_id{}, model::dso_kind::user);
    space->insert(entry);
  }
  return space;
}

TEST(DwarfUnwinder, FindsTheCallersOfThisProcessFromItsRegistersAndStackCopy) {
  captured sample;
  unwind_test_outer(sample);
  std::shared_ptr<model::maps> space = own_maps();
  user_registers regs;
  regs.abi = PERF_SAMPLE_REGS_ABI_64;
  regs.mask = 0xff0fff;
  regs.values = sample.registers;
  dwarf_unwinder unwinder([](const model::map& where) { return where.object->name(); });
  std::vector<unwound_frame> frames;
  unwinder.unwind(getpid(), gettid(), 0, space, regs, sample.stack, frames);

  ASSERT_GE(frames.size(), 3u);
  EXPECT_EQ(frames[0].pc, sample.registers[8]);  // the IP, exact
  EXPECT_FALSE(frames[0].caller);
  symbolizer names{symbolizer_settings{}};
  std::vector<std::string> functions;
  for (const unwound_frame& frame : frames) {
    std::uint64_t lookup = frame.caller ? frame.pc - 1 : frame.pc;
    std::optional<model::map> where = space->find(lookup);
    functions.emplace_back(where ? names.function_at(*where, lookup, {}) : "");
  }
  std::string listed;
  for (const std::string& name : functions) listed += name + "\n";
  ASSERT_GE(functions.size(), 3u);
  EXPECT_NE(functions[0].find("capture_here"), std::string::npos) << listed;
  EXPECT_NE(functions[1].find("unwind_test_inner"), std::string::npos) << listed;
  EXPECT_NE(functions[2].find("unwind_test_outer"), std::string::npos) << listed;
  EXPECT_TRUE(frames[1].caller);
  EXPECT_EQ(unwinder.cached_processes(), 1u);

  // The same process again: its Dwfl is reused, and gives the same frames.
  std::vector<unwound_frame> again;
  unwinder.unwind(getpid(), gettid(), 0, space, regs, sample.stack, again);
  EXPECT_EQ(again.size(), frames.size());
  EXPECT_EQ(unwinder.cached_processes(), 1u);

  // The cap: no more frames than asked for, the leaf first.
  dwarf_unwinder capped([](const model::map& where) { return where.object->name(); }, 2);
  capped.unwind(getpid(), gettid(), 0, space, regs, sample.stack, again);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[1].pc, frames[1].pc);
}

TEST(DwarfUnwinder, KeepsTheIpOfWhatItCannotUnwind) {
  auto space = std::make_shared<model::maps>();  // no file mapped: no CFI anywhere
  std::array<std::uint64_t, 20> values{};
  values[7] = 0x7ffd0000;  // SP
  values[8] = 0x1234;      // IP
  user_registers regs{PERF_SAMPLE_REGS_ABI_64, 0xff0fff, values};
  std::vector<std::byte> stack(64);
  dwarf_unwinder unwinder([](const model::map&) { return std::string{}; });
  std::vector<unwound_frame> frames;
  unwinder.unwind(1, 1, 0, space, regs, stack, frames);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].pc, 0x1234u);
  EXPECT_FALSE(frames[0].caller);

  // No registers (a kernel thread) or a 32-bit process: nothing to start from.
  unwinder.unwind(1, 1, 0, space, user_registers{}, stack, frames);
  EXPECT_TRUE(frames.empty());
  regs.abi = PERF_SAMPLE_REGS_ABI_32;
  unwinder.unwind(1, 1, 0, space, regs, stack, frames);
  EXPECT_TRUE(frames.empty());
}

#endif

}  // namespace
}  // namespace arec::exporting
