// The CFI rules of real objects (a frameless -O1 leaf of a test program, Debian's libc) and the
// completion of frame-pointer chains from them.
#include "symbols/chain_completion.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>

#include "support/allocation_counter.hpp"
#include "symbols/elf_symbols.hpp"
#include "symbols/frame_rules.hpp"

namespace arec::symbols {
namespace {

const std::string program = std::string(AREC_TEST_PROGRAMS) + "/frameless_calls";

std::uint64_t symbol(const elf_symbol_table& table, const std::string& name) {
  for (const elf_symbol& s : table.symbols)
    if (s.name == name) return s.start;
  ADD_FAILURE() << name << " not found";
  return 0;
}

const elf_symbol* symbol_entry(const elf_symbol_table& table, const std::string& name) {
  for (const elf_symbol& s : table.symbols)
    if (s.name == name) return &s;
  return nullptr;
}

// The file and the address in its own layout of a function this test process calls.
struct located {
  std::string file;
  std::uint64_t vaddr = 0;
};

located locate(const void* function) {
  Dl_info info{};
  EXPECT_NE(dladdr(function, &info), 0);
  return {info.dli_fname, reinterpret_cast<std::uint64_t>(function) -
                              reinterpret_cast<std::uint64_t>(info.dli_fbase)};
}

TEST(FrameRules, TheFramelessLeafHasItsReturnAddressAtTheStackPointer) {
  auto cfi = object_cfi::open(program);
  ASSERT_TRUE(cfi);
  auto table = read_elf_symbols(program.c_str());
  ASSERT_TRUE(table);
  frame_rule rule = cfi->rule_at(symbol(*table, "leaf") + 4);
  EXPECT_EQ(rule.cfa_base, frame_rule::base::sp);
  EXPECT_EQ(rule.cfa_offset, 8);
  EXPECT_TRUE(rule.ra_saved);
  EXPECT_EQ(rule.ra_offset, -8);
  EXPECT_FALSE(rule.saves_bp);
}

TEST(FrameRules, AFunctionWithAFramePointerIsRbpBasedPastItsPrologue) {
  auto cfi = object_cfi::open(program);
  ASSERT_TRUE(cfi);
  auto table = read_elf_symbols(program.c_str());
  ASSERT_TRUE(table);
  std::uint64_t stage = symbol(*table, "stage");
  EXPECT_EQ(cfi->rule_at(stage).cfa_base, frame_rule::base::sp);  // before push %rbp
  frame_rule body = cfi->rule_at(stage + 8);                      // past mov %rsp,%rbp
  EXPECT_EQ(body.cfa_base, frame_rule::base::bp);
  EXPECT_EQ(body.cfa_offset, 16);
  EXPECT_TRUE(body.saves_bp);
}

// Debian's libc has no frame pointers: in every instruction of its memchr (the IFUNC's choice
// for this CPU) and of the blocking wrappers, the CFA is rsp-based and the return address saved.
TEST(FrameRules, DebianLibcFunctionsAreFramelessAtEveryInstruction) {
  // libc's own memchr, as its IFUNC resolved it for this CPU: asked of libc itself, since in
  // a sanitized build ::memchr is the sanitizer's interceptor.
  void* libc = ::dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(libc, nullptr) << ::dlerror();
  const void* chosen = ::dlsym(libc, "memchr");
  ::dlclose(libc);
  ASSERT_NE(chosen, nullptr);
  located memchr_at = locate(chosen);
  auto cfi = object_cfi::open(memchr_at.file);
  ASSERT_TRUE(cfi) << memchr_at.file;
  frame_rule entry = cfi->rule_at(memchr_at.vaddr);
  EXPECT_EQ(entry.cfa_base, frame_rule::base::sp);
  EXPECT_TRUE(entry.ra_saved);

  auto table = read_elf_symbols(memchr_at.file.c_str());
  ASSERT_TRUE(table);
  // Of aliases, the table keeps the one perf shows: the global __nanosleep and __poll, not the
  // weak nanosleep and poll.
  for (const char* name : {"read", "usleep", "__nanosleep", "__poll", "epoll_wait"}) {
    const elf_symbol* function = symbol_entry(*table, name);
    ASSERT_TRUE(function && function->size > 0) << name;
    for (std::uint64_t at = function->start; at < function->start + function->size; ++at) {
      frame_rule rule = cfi->rule_at(at);
      ASSERT_EQ(rule.cfa_base, frame_rule::base::sp) << name << "+" << at - function->start;
      ASSERT_TRUE(rule.ra_saved) << name << "+" << at - function->start;
    }
  }
}

// Rules by address, as a process's maps would give them.
class table_rules final : public frame_rule_source {
 public:
  std::map<std::uint64_t, frame_rule> rules;
  frame_rule rule_for(std::uint64_t pc) override {
    auto found = rules.find(pc);
    return found == rules.end() ? frame_rule{} : found->second;
  }
};

frame_rule frameless(std::int32_t cfa_offset, bool saves_bp = false) {
  return {frame_rule::base::sp, cfa_offset, -8, true, saves_bp};
}
frame_rule with_frame() { return {frame_rule::base::bp, 16, -8, true, true}; }

std::vector<std::byte> stack_of(std::initializer_list<std::uint64_t> words) {
  std::vector<std::byte> bytes(words.size() * 8);
  std::size_t i = 0;
  for (std::uint64_t w : words) std::memcpy(bytes.data() + 8 * i++, &w, 8);
  return bytes;
}

// leaf (frameless) <- stage (rbp frame) <- driver <- main: the kernel's chain skips stage.
TEST(ChainCompletion, TheCallerOfAFramelessLeafIsPutBack) {
  table_rules rules;
  rules.rules[0x1000] = frameless(8);   // the leaf's pc
  rules.rules[0x2004] = with_frame();   // stage, at its call of leaf (ra - 1)
  std::vector<std::uint64_t> user{0x1000, 0x3005, 0x4005};  // leaf, driver, main
  auto stack = stack_of({0x2005, 0xdead});
  std::vector<std::uint64_t> out;
  EXPECT_EQ(complete_user_chain(user, stack, rules, out), completion::completed);
  EXPECT_EQ(out, (std::vector<std::uint64_t>{0x1000, 0x2005, 0x3005, 0x4005}));
}

// clock_nanosleep <- nanosleep <- usleep (all frameless, each with its own frame size) <- nap.
TEST(ChainCompletion, AChainOfFramelessLibcFunctionsIsWalkedToTheFunctionThatCalledThem) {
  table_rules rules;
  rules.rules[0x1000] = frameless(24);  // sub $16 after the call
  rules.rules[0x1104] = frameless(8);
  rules.rules[0x1204] = frameless(40);
  rules.rules[0x2004] = with_frame();
  std::vector<std::uint64_t> user{0x1000, 0x3005};
  auto stack = stack_of({0, 0, 0x1105, 0x1205, 0, 0, 0, 0, 0x2005});
  std::vector<std::uint64_t> out;
  EXPECT_EQ(complete_user_chain(user, stack, rules, out), completion::completed);
  EXPECT_EQ(out, (std::vector<std::uint64_t>{0x1000, 0x1105, 0x1205, 0x2005, 0x3005}));
}

TEST(ChainCompletion, APcWithItsFramePointerSetUpKeepsTheChain) {
  table_rules rules;
  rules.rules[0x2000] = with_frame();
  std::vector<std::uint64_t> user{0x2000, 0x3005};
  std::vector<std::uint64_t> out;
  EXPECT_EQ(complete_user_chain(user, {}, rules, out), completion::unchanged);
  EXPECT_EQ(out, user);
}

TEST(ChainCompletion, MeetingTheKernelsNextReturnAddressSplicesWithoutRepeatingIt) {
  table_rules rules;
  rules.rules[0x1000] = frameless(8);
  std::vector<std::uint64_t> user{0x1000, 0x3005, 0x4005};
  auto stack = stack_of({0x3005});
  std::vector<std::uint64_t> out;
  EXPECT_EQ(complete_user_chain(user, stack, rules, out), completion::completed);
  EXPECT_EQ(out, user);
}

TEST(ChainCompletion, WhereRecoveryCannotRunTheChainStaysAndSaysWhy) {
  table_rules rules;
  std::vector<std::uint64_t> user{0x1000, 0x3005};
  std::vector<std::uint64_t> out;
  EXPECT_EQ(complete_user_chain(user, stack_of({0x2005}), rules, out), completion::no_cfi);
  EXPECT_EQ(out, user);
  rules.rules[0x1000] = frameless(64);
  EXPECT_EQ(complete_user_chain(user, stack_of({0x2005}), rules, out), completion::short_snapshot);
  EXPECT_EQ(out, user);
  EXPECT_EQ(complete_user_chain(user, {}, rules, out), completion::no_snapshot);
  EXPECT_TRUE(not_completed(completion::short_snapshot));
  EXPECT_FALSE(not_completed(completion::bp_unverified));
}

TEST(ChainCompletion, AFramelessFrameThatSavedRbpLeavesTheSpliceUnverified) {
  table_rules rules;
  rules.rules[0x1000] = frameless(16, true);
  rules.rules[0x2004] = with_frame();
  std::vector<std::uint64_t> user{0x1000, 0x3005};
  std::vector<std::uint64_t> out;
  EXPECT_EQ(complete_user_chain(user, stack_of({0x7fff0000, 0x2005}), rules, out),
            completion::bp_unverified);
  EXPECT_EQ(out, (std::vector<std::uint64_t>{0x1000, 0x2005, 0x3005}));
}

TEST(ChainCompletion, AWarmCompletionAllocatesNothing) {
  ASSERT_TRUE(test::counting_works());
  auto cfi = object_cfi::open(program);
  ASSERT_TRUE(cfi);
  auto table = read_elf_symbols(program.c_str());
  ASSERT_TRUE(table);
  std::uint64_t leaf = symbol(*table, "leaf") + 4;
  std::uint64_t ra = symbol(*table, "stage") + 9;
  struct file_rules final : frame_rule_source {
    object_cfi* cfi;
    frame_rule rule_for(std::uint64_t pc) override { return cfi->rule_at(pc); }
  } rules;
  rules.cfi = cfi.get();
  std::vector<std::uint64_t> user{leaf, 0x3005, 0x4005};
  auto stack = stack_of({ra});
  std::vector<std::uint64_t> out;
  ASSERT_EQ(complete_user_chain(user, stack, rules, out), completion::completed);
  std::uint64_t before = test::allocations();
  for (int i = 0; i < 100; ++i) complete_user_chain(user, stack, rules, out);
  EXPECT_EQ(test::allocations(), before);
  EXPECT_EQ(out.size(), 4u);
}

}  // namespace
}  // namespace arec::symbols
