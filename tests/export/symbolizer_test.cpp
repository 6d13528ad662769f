// symbolizer: names from an ELF file's symbol table (this test's own executable, built with the
// tests), demangled; the build-id cache when the file on disk is another build; kallsyms.
#include "export/symbolizer.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "host/proc_maps.hpp"
#include "support/temp_dir.hpp"
#include "symbols/elf_build_id.hpp"

namespace symbolizer_probe {
// A function of this executable with a C++ name; noinline so that it has an address.
__attribute__((noinline)) int busy(int value) {
  asm volatile("" ::: "memory");
  return value * 3 + 1;
}
}  // namespace symbolizer_probe

namespace arec::exporting {
namespace {

std::string self_path() {
  return std::filesystem::read_symlink("/proc/self/exe").string();
}

// The mapping of this process that holds `address`, as the recorder would have seen it.
model::map mapping_of(std::uint64_t address, const std::string& dso_name) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    auto entry = host::parse_maps_line(line);
    if (!entry || address < entry->start || address >= entry->end) continue;
    model::map found;
    found.start = entry->start;
    found.end = entry->end;
    found.pgoff = entry->pgoff;
    found.object = std::make_shared<model::dso>(dso_name, model::dso_id{}, model::dso_kind::user);
    return found;
  }
  ADD_FAILURE() << "no mapping holds " << address;
  return {};
}

std::uint64_t probe_address() {
  return reinterpret_cast<std::uint64_t>(&symbolizer_probe::busy) + 4;
}

TEST(Symbolizer, NamesAFunctionOfAMappedFileDemangled) {
  symbolizer symbols({});
  model::map where = mapping_of(probe_address(), self_path());
  EXPECT_EQ(symbols.function_at(where, probe_address(), {}), "symbolizer_probe::busy(int)");
  EXPECT_TRUE(symbols.has_symbols(where, {}));
  EXPECT_EQ(symbols.file_build_id(where), symbols::read_elf_build_id(self_path().c_str()).value());
}

// A recording without build-ids (-B) whose MMAP2 named another inode of the path's device:
// the file there now is not the one mapped, and its names would be wrong ones.
TEST(Symbolizer, AnotherFileAtTheMappedPathNamesNothing) {
  struct stat self {};
  ASSERT_EQ(::stat(self_path().c_str(), &self), 0);
  model::map where = mapping_of(probe_address(), self_path());
  model::dso_id other{
      .major = major(self.st_dev), .minor = minor(self.st_dev), .inode = self.st_ino + 1};
  where.object = std::make_shared<model::dso>(self_path(), other, model::dso_kind::user);
  symbolizer symbols({});
  EXPECT_EQ(symbols.function_at(where, probe_address(), {}), "");
  model::dso_id same = other;
  same.inode = self.st_ino;
  where.object = std::make_shared<model::dso>(self_path(), same, model::dso_kind::user);
  EXPECT_EQ(symbols.function_at(where, probe_address(), {}), "symbolizer_probe::busy(int)");
}

TEST(Symbolizer, ReadsARebuiltFileFromTheBuildIdCache) {
  test::temp_dir cache;
  auto id = symbols::read_elf_build_id(self_path().c_str());
  ASSERT_TRUE(id) << "the test executable has no build-id";
  std::string hex = id->hex();
  std::string stored = cache.path() + "/app/" + hex;
  std::filesystem::create_directories(stored);
  std::filesystem::copy_file(self_path(), stored + "/elf");
  std::filesystem::create_directories(cache.path() + "/.build-id/" + hex.substr(0, 2));
  std::filesystem::create_directory_symlink(
      "../../app/" + hex, cache.path() + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2));
  symbolizer_settings settings;
  settings.build_id_dir = cache.path();
  symbolizer symbols(settings);
  // The recorded file is gone: its build-id finds the copy in the cache.
  model::map where = mapping_of(probe_address(), cache.file("gone"));
  EXPECT_EQ(symbols.function_at(where, probe_address(), *id), "symbolizer_probe::busy(int)");
}

// A stripped copy of this executable keeps only .dynsym; its debug file, found by build-id as
// Debian's -dbg packages install it, names the functions again.
TEST(Symbolizer, NamesAStrippedFileFromItsDebugFile) {
  test::temp_dir dir;
  auto id = symbols::read_elf_build_id(self_path().c_str());
  ASSERT_TRUE(id) << "the test executable has no build-id";
  std::string hex = id->hex();
  std::string debug_dir = dir.file("debug");
  std::filesystem::create_directories(debug_dir + "/.build-id/" + hex.substr(0, 2));
  std::string stripped = dir.file("stripped");
  std::string debug_file =
      debug_dir + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
  ASSERT_EQ(std::system(("strip --strip-all -o '" + stripped + "' '" + self_path() + "'").c_str()),
            0);
  ASSERT_EQ(
      std::system(("objcopy --only-keep-debug '" + self_path() + "' '" + debug_file + "'").c_str()),
      0);

  symbolizer_settings without;
  without.debug_dir = "";
  symbolizer plain(without);
  model::map where = mapping_of(probe_address(), stripped);
  // Without its symbols the function is named by where its FDE starts: the symbol's start.
  auto full = symbols::read_elf_symbols(self_path().c_str());
  ASSERT_TRUE(full);
  auto vaddr = full->vaddr_of_offset(probe_address() - where.start + where.pgoff);
  ASSERT_TRUE(vaddr);
  const symbols::elf_symbol* probe = full->find(*vaddr);
  ASSERT_NE(probe, nullptr);
  std::ostringstream grouped;
  grouped << "stripped+0x" << std::hex << probe->start;
  EXPECT_EQ(plain.function_at(where, probe_address(), *id), grouped.str());

  symbolizer_settings with;
  with.debug_dir = debug_dir;
  symbolizer symbols(with);
  EXPECT_EQ(symbols.function_at(where, probe_address(), *id), "symbolizer_probe::busy(int)");
}

TEST(Symbolizer, GivesNoNamesFromAFileOfAnotherBuild) {
  symbolizer symbols({});
  model::map where = mapping_of(probe_address(), self_path());
  perf_data::build_id other =
      perf_data::build_id::from(std::as_bytes(std::span{"another build-id...", 20}));
  EXPECT_EQ(symbols.function_at(where, probe_address(), other), "");
  EXPECT_FALSE(symbols.has_symbols(where, other));
}

TEST(Symbolizer, NamesKernelAddressesFromKallsyms) {
  test::temp_dir dir;
  std::ofstream(dir.file("kallsyms")) << "ffffffff81000000 T _stext\n"
                                      << "ffffffff81000040 D some_data\n"
                                      << "ffffffffc0000000 t mod_fn\t[mod]\n"
                                      << "ffffffff81000080 W weak_fn\n";
  symbolizer_settings settings;
  settings.kallsyms_path = dir.file("kallsyms");
  symbolizer symbols(settings);
  std::vector<std::uint64_t> addresses{0x1000, 0xffffffff81000050, 0xffffffff81000090,
                                       0xffffffffc0000010};
  EXPECT_EQ(symbols.kernel_functions(addresses),  // data symbols are skipped
            (std::vector<std::string>{"", "_stext", "weak_fn", "mod_fn"}));
}

TEST(Symbolizer, DemanglesOnlyItaniumNames) {
  EXPECT_EQ(demangle("_ZN3foo3barEv"), "foo::bar()");
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle("_Zbroken"), "_Zbroken");
}

}  // namespace
}  // namespace arec::exporting
