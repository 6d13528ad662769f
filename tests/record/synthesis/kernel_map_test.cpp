// kernel_map: the kernel image MMAP from /proc/kallsyms and one MMAP per module, read from this
// machine and from fixtures of restricted and unusual /proc files.
#include "record/synthesis/kernel_map.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "collecting_sink.hpp"

using namespace arec::record;
using namespace arec::test::synthesized;

namespace {

std::optional<std::uint64_t> kallsyms_address(const std::string& symbol) {
  std::ifstream in{"/proc/kallsyms"};
  std::string address, type, name;
  while (in >> address >> type >> name) {
    if (name == symbol) return std::stoull(address, nullptr, 16);
    in.ignore(1 << 20, '\n');
  }
  return std::nullopt;
}

std::string fixture_dir = std::string{AREC_TEST_SOURCE_DIR} + "/fixtures/proc/";

// Without `iomem` _etext comes from the kallsyms fixture, whatever this machine's iomem says.
kernel_sources fixture_sources(const char* kallsyms, const char* modules,
                               const char* iomem = nullptr) {
  static std::vector<std::string> keep;  // c_str()s must outlive the call
  keep.push_back(fixture_dir + kallsyms);
  keep.push_back(fixture_dir + modules);
  keep.push_back(fixture_dir + "modules.dep");
  keep.push_back(fixture_dir + (iomem ? iomem : ""));
  auto n = keep.size();
  return {keep[n - 4].c_str(), keep[n - 3].c_str(), keep[n - 2].c_str(),
          iomem ? keep[n - 1].c_str() : nullptr};
}

}  // namespace

TEST(KernelMap, KernelMmapPointsAtTextFromKallsyms) {
  auto text = kallsyms_address("_text");
  if (!text || *text == 0) GTEST_SKIP() << "kallsyms hides addresses (kptr_restrict)";
  auto etext = kallsyms_address("_etext");
  collecting_sink sink;
  ASSERT_TRUE(synthesize_kernel_maps(sink, {}));
  expect_well_formed(sink.records, 32);
  ASSERT_FALSE(sink.records.empty());
  const record& kernel = sink.records[0];
  EXPECT_EQ(kernel.type(), static_cast<std::uint32_t>(PERF_RECORD_MMAP));
  EXPECT_EQ(kernel.misc(), PERF_RECORD_MISC_KERNEL);
  EXPECT_EQ(kernel.u32(8), 0xffffffffu) << "pid -1";
  EXPECT_EQ(kernel.u32(12), 0u) << "tid";
  EXPECT_EQ(kernel.u64(16), *text) << "start";
  if (etext) {
    EXPECT_EQ(kernel.u64(24), *etext - *text) << "len";
  }
  EXPECT_EQ(kernel.u64(32), *text) << "pgoff = _text";
  EXPECT_EQ(kernel.text(40), "[kernel.kallsyms]_text");
}

TEST(KernelMap, IomemKernelCodeGivesThisMachinesEtext) {
  if (!iomem_bounding_kernel_text) GTEST_SKIP() << "iomem bounds the kernel text only on x86";
  auto etext = kallsyms_address("_etext");
  if (::geteuid() != 0 || !etext || *etext == 0)
    GTEST_SKIP() << "iomem and kallsyms hide addresses from this user";
  ASSERT_TRUE(kernel_code_length("/proc/iomem").has_value());
  auto from_iomem = find_kernel_text("/proc/kallsyms", "/proc/iomem");
  ASSERT_TRUE(from_iomem);
  EXPECT_EQ(from_iomem->end, *etext);
  EXPECT_EQ(from_iomem->start, kallsyms_address("_text").value_or(0));
}

TEST(KernelMap, EtextIsTextPlusTheKernelCodeResource) {
  EXPECT_EQ(kernel_code_length((fixture_dir + "iomem").c_str()), 0x1000000u);
  auto text = find_kernel_text((fixture_dir + "kallsyms").c_str(), (fixture_dir + "iomem").c_str());
  ASSERT_TRUE(text);
  EXPECT_EQ(text->start, 0xffffffffa1000000u);
  EXPECT_EQ(text->end, 0xffffffffa2000000u) << "iomem's length, not the fixture's _etext";
}

TEST(KernelMap, HiddenOrMissingIomemFallsBackToKallsymsEtext) {
  EXPECT_FALSE(kernel_code_length((fixture_dir + "iomem_hidden").c_str()));
  EXPECT_FALSE(kernel_code_length((fixture_dir + "no_such_iomem").c_str()));
  collecting_sink sink;
  ASSERT_TRUE(
      synthesize_kernel_maps(sink, {}, fixture_sources("kallsyms", "modules", "iomem_hidden")));
  ASSERT_FALSE(sink.records.empty());
  EXPECT_EQ(sink.records[0].u64(24), 0xffffffffa2200000u - 0xffffffffa1000000u);
}

TEST(KernelMap, IomemNeedsTextItStartsThere) {
  auto text = find_kernel_text((fixture_dir + "kallsyms_stext_only").c_str(),
                               (fixture_dir + "iomem").c_str());
  ASSERT_TRUE(text);
  EXPECT_EQ(text->symbol, "_stext");
  EXPECT_EQ(text->end, 0u) << "_stext need not be where the resource starts";
}

TEST(KernelMap, ModulesFollowInAddressOrderWithTheirFiles) {
  collecting_sink sink;
  ASSERT_TRUE(synthesize_kernel_maps(sink, {}, fixture_sources("kallsyms", "modules")));
  ASSERT_EQ(sink.records.size(), 4u);
  EXPECT_EQ(sink.records[0].u64(16), 0xffffffffa1000000u);
  EXPECT_EQ(sink.records[0].u64(24), 0xffffffffa2200000u - 0xffffffffa1000000u);
  const std::string& dir = fixture_dir;
  struct expected_module {
    std::uint64_t start, len;
    std::string name;
  } expected[] = {
      {0xffffffffc0a8f000, 286720, dir + "kernel/net/netfilter/nf_tables.ko.xz"},
      {0xffffffffc0b00000, 57344, dir + "kernel/sound/pci/hda/snd-hda-intel.ko"},
      {0xffffffffc0c00000, 16384, "[out_of_tree]"},
  };
  for (std::size_t i = 0; i < 3; ++i) {
    const record& r = sink.records[i + 1];
    EXPECT_EQ(r.type(), static_cast<std::uint32_t>(PERF_RECORD_MMAP));
    EXPECT_EQ(r.misc(), PERF_RECORD_MISC_KERNEL);
    EXPECT_EQ(r.u32(8), 0xffffffffu);
    EXPECT_EQ(r.u64(16), expected[i].start);
    EXPECT_EQ(r.u64(24), expected[i].len);
    EXPECT_EQ(r.u64(32), 0u);
    EXPECT_EQ(r.text(40), expected[i].name);
  }
}

TEST(KernelMap, RestrictedKallsymsWritesNothingAndSaysSo) {
  collecting_sink sink;
  EXPECT_FALSE(synthesize_kernel_maps(sink, {}, fixture_sources("kallsyms_restricted", "modules")));
  EXPECT_TRUE(sink.records.empty());
}

TEST(KernelMap, FallsBackToStextAndEndsAtTheFirstModule) {
  collecting_sink sink;
  ASSERT_TRUE(synthesize_kernel_maps(sink, {}, fixture_sources("kallsyms_stext_only", "modules")));
  ASSERT_FALSE(sink.records.empty());
  EXPECT_EQ(sink.records[0].text(40), "[kernel.kallsyms]_stext");
  EXPECT_EQ(sink.records[0].u64(32), 0xffffffffa1000000u);
  EXPECT_EQ(sink.records[0].u64(24), 0xffffffffc0a8f000u - 0xffffffffa1000000u);
}

TEST(KernelMap, RestrictedModuleAddressesAreLeftOut) {
  collecting_sink sink;
  ASSERT_TRUE(synthesize_kernel_maps(sink, {}, fixture_sources("kallsyms", "modules_restricted")));
  EXPECT_EQ(sink.records.size(), 1u);
}

TEST(KernelMap, ParsesAModulesLine) {
  auto module = parse_module_line("nf_tables 286720 0 - Live 0xffffffffc0a8f000 (OE)");
  ASSERT_TRUE(module.has_value());
  EXPECT_EQ(module->name, "nf_tables");
  EXPECT_EQ(module->size, 286720u);
  EXPECT_EQ(module->start, 0xffffffffc0a8f000u);
  EXPECT_FALSE(parse_module_line("broken").has_value());
}
