// jit_unwind_modules: the ELF libdwfl unwinds a JIT mapping with, made from the process's dump
// for the code generation at a sample's time: none where no function there has call frame
// information; one per mapping and generation, kept while the dump is the same, made anew
// (another name) when a later file brings a grown dump.
#include "export/jit_unwind_modules.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "support/jitdump_bytes.hpp"

namespace arec::exporting {
namespace {

constexpr std::uint64_t start = 0x7f0000001000;
constexpr perf_data::file_clocks same_clock{{1, 1}, {2, 2}};  // dump times are recording times
const model::map mapping{0x7f0000000000, 0x7f0000010000};

// A dump of process 1234: `name` at `start` with call frame information, at time 100.
std::string dump_with(const std::string& name, std::uint64_t timestamp = 100) {
  return test::jitdump_unwinding_info(test::jitdump_eh_frame(start, 21), 20, timestamp) +
         test::jitdump_code_load(name, 21, false, start, timestamp);
}

perf_data::captured_jitdumps dumps(const std::string& records) {
  return {same_clock, {{1234, test::jitdump_header() + records, 0}}};
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(JitUnwindModules, AMappingWithCallFramesHasAnElfOfItsOwnMappingsWithoutNone) {
  jit_unwind_modules modules;
  EXPECT_EQ(modules.module_for(1234, mapping, 200), nullptr) << "no dump yet";
  modules.use(dumps(dump_with("JS:*a") +
                    test::jitdump_code_load("JS:*plain", 8, false, 0x7f0000020000, 100)));
  const made_module* made = modules.module_for(1234, mapping, 200);
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(modules.module_for(1234, mapping, 300), made) << "made once";
  std::string elf = file_text(made->path);
  EXPECT_TRUE(elf.starts_with("\x7f" "ELF"));
  EXPECT_NE(elf.find(".eh_frame_hdr"), std::string::npos);
  EXPECT_EQ(modules.module_for(1234, {0x7f0000020000, 0x7f0000030000}, 200), nullptr)
      << "its function has no call frame information";
  EXPECT_EQ(modules.module_for(99, mapping, 200), nullptr) << "another process";
  EXPECT_EQ(modules.not_unwound(), 0u);
}

TEST(JitUnwindModules, ALaterFilesGrownDumpMakesANewModuleTheSameDumpKeepsIt) {
  jit_unwind_modules modules;
  modules.use(dumps(dump_with("JS:*a")));
  std::string name = modules.module_for(1234, mapping, 200)->name;
  modules.use(dumps(dump_with("JS:*a")));
  EXPECT_EQ(modules.module_for(1234, mapping, 200)->name, name);
  modules.use(dumps(dump_with("JS:*a") + test::jitdump_code_load("JS:*b", 8, false,
                                                                  0x7f0000002000, 150)));
  const made_module* grown = modules.module_for(1234, mapping, 200);
  ASSERT_NE(grown, nullptr);
  EXPECT_NE(grown->name, name) << "a Dwfl that has the old one must start over";
}

TEST(JitUnwindModules, EachGenerationHasItsOwnModule) {
  jit_unwind_modules modules;
  // Code loaded at 300 over the range the first load held: a second generation from 300.
  modules.use(dumps(dump_with("JS:*a", 100) + dump_with("JS:*b", 300)));
  const made_module* first = modules.module_for(1234, mapping, 200);
  const made_module* second = modules.module_for(1234, mapping, 400);
  ASSERT_TRUE(first && second);
  EXPECT_NE(first->name, second->name);
  EXPECT_NE(first->name.find(".1.elf"), std::string::npos) << first->name;
  EXPECT_NE(second->name.find(".2.elf"), std::string::npos) << second->name;
}

}  // namespace
}  // namespace arec::exporting
