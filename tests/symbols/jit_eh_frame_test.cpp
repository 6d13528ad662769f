// jit_eh_frame: a jitdump's UNWINDING_INFO entries moved into one .eh_frame section, their
// PC-relative pointers rewritten so that each FDE still starts at its function; entries no
// runtime writes for a function, and those of code that overlaps other code, left out and
// counted; and the .eh_frame_hdr table over what was kept.
#include "symbols/jit_eh_frame.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "support/jitdump_bytes.hpp"
#include "symbols/eh_frame_index.hpp"

namespace arec::symbols {
namespace {

constexpr std::uint64_t low = 0x7f0000000000, high = 0x7f0000100000;
constexpr std::uint64_t section = 0x7f0000080000;

std::int32_t load_i32(const std::vector<std::byte>& bytes, std::size_t at) {
  std::int32_t value = 0;
  std::memcpy(&value, bytes.data() + at, 4);
  return value;
}

jitdump_code function(std::uint64_t start, std::uint64_t size, const std::string& eh_frame) {
  return {100, start, size, std::nullopt, "f", std::as_bytes(std::span{eh_frame})};
}

TEST(JitEhFrame, EachFdeStillStartsAtItsFunctionWhereverTheSectionIs) {
  std::string first = test::jitdump_eh_frame(low + 0x100, 21);
  std::string second = test::jitdump_eh_frame(low + 0x200, 40);
  std::vector<jitdump_code> code{function(low + 0x100, 21, first), function(low + 0x200, 40, second),
                                 function(low + 0x300, 8, "")};
  jit_eh_frame merged = merge_jit_eh_frames(code, low, high, section);
  EXPECT_EQ(merged.functions, 2u);
  EXPECT_EQ(merged.refused, 0u);
  ASSERT_EQ(merged.fdes.size(), 2u);
  // Each chunk without its terminator, then one for the section.
  ASSERT_EQ(merged.bytes.size(), first.size() - 4 + second.size() - 4 + 4);
  EXPECT_EQ(load_i32(merged.bytes, merged.bytes.size() - 4), 0);
  std::uint64_t starts[] = {low + 0x100, low + 0x200};
  for (std::size_t i = 0; i < 2; ++i) {
    const jit_fde& fde = merged.fdes[i];
    EXPECT_EQ(fde.first, starts[i]);
    std::uint64_t field = section + fde.offset + 8;  // pc_begin, PC-relative
    EXPECT_EQ(field + static_cast<std::uint64_t>(load_i32(merged.bytes, fde.offset + 8)), starts[i]);
    EXPECT_NE(load_i32(merged.bytes, fde.offset + 4), 0) << "an FDE, pointing back to its CIE";
  }
  // Everything else is the runtime's bytes: the second chunk's CIE, unchanged.
  EXPECT_EQ(std::memcmp(merged.bytes.data() + first.size() - 4, second.data(), 24), 0);
}

TEST(JitEhFrame, EntriesNoRuntimeWritesForTheFunctionAreLeftOutAndCounted) {
  std::uint64_t start = low + 0x100;
  std::string good = test::jitdump_eh_frame(start, 21);
  std::string sixty_four = good;
  sixty_four.replace(0, 4, std::string(4, '\xff'));
  std::string lost_cie = good;
  lost_cie[good.size() - 4 - 24 + 4] = '\x7f';  // the FDE's CIE pointer
  const std::vector<std::pair<const char*, std::string>> cases{
      {"an FDE before its function", test::jitdump_eh_frame(start, 21, 0x1b, "zR", -16)},
      {"an FDE past its function", test::jitdump_eh_frame(start, 21, 0x1b, "zR", 24)},
      {"data-relative pointers", test::jitdump_eh_frame(start, 21, 0x3b)},
      {"LEB128 pointers", test::jitdump_eh_frame(start, 21, 0x11)},
      {"a personality routine", test::jitdump_eh_frame(start, 21, 0x1b, "zPR")},
      {"an LSDA", test::jitdump_eh_frame(start, 21, 0x1b, "zLR")},
      {"a 64-bit length", sixty_four},
      {"an entry cut short", good.substr(0, good.size() - 12)},
      {"an FDE without its CIE", lost_cie},
      {"no FDE", good.substr(0, 24)},
  };
  for (const auto& [why, bytes] : cases) {
    std::vector<jitdump_code> code{function(start, 21, bytes)};
    jit_eh_frame merged = merge_jit_eh_frames(code, low, high, section);
    EXPECT_EQ(merged.refused, 1u) << why;
    EXPECT_TRUE(merged.bytes.empty()) << why;
  }
  std::vector<jitdump_code> code{function(start, 21, good)};
  EXPECT_EQ(merge_jit_eh_frames(code, low, high, section).functions, 1u) << "the good one";
  EXPECT_EQ(merge_jit_eh_frames(code, low, high, section + (1ull << 32)).refused, 1u)
      << "a section 4 GiB away cannot point at the function with 32 bits";
}

TEST(JitEhFrame, V8sCieIsTaken) {
  // node 20's: version 3 (the return address column a ULEB128), "zLR" with the LSDA omitted.
  std::uint64_t start = low + 0x100;
  std::string v8 = test::jitdump_eh_frame(start, 21, 0x1b, "zLR");
  v8[8] = '\x03';
  v8[17] = '\xff';  // the 'L' byte of the augmentation data: DW_EH_PE_omit
  std::vector<jitdump_code> code{function(start, 21, v8)};
  jit_eh_frame merged = merge_jit_eh_frames(code, low, high, section);
  EXPECT_EQ(merged.functions, 1u);
  EXPECT_EQ(merged.refused, 0u);
}

TEST(JitEhFrame, CodeLoadedOverOtherCodeTakesItsPlaceCodeOutsideTheMappingHasNone) {
  std::string first = test::jitdump_eh_frame(low + 0x100, 32);
  std::string second = test::jitdump_eh_frame(low + 0x110, 32);
  std::string third = test::jitdump_eh_frame(low + 0x200, 32);
  std::vector<jitdump_code> reused{function(low + 0x100, 32, first),
                                   function(low + 0x200, 32, third),
                                   function(low + 0x110, 32, second)};
  jit_eh_frame merged = merge_jit_eh_frames(reused, low, high, section);
  EXPECT_EQ(merged.functions, 2u);
  EXPECT_EQ(merged.refused, 0u) << "code that is gone is not left out: it is not there";
  ASSERT_EQ(merged.fdes.size(), 2u);
  EXPECT_EQ(merged.fdes[0].first, low + 0x200);
  EXPECT_EQ(merged.fdes[1].first, low + 0x110) << "the code loaded last holds 0x110 to 0x130";

  std::vector<jitdump_code> outside{function(high + 0x100, 32, first)};
  merged = merge_jit_eh_frames(outside, low, high, section);
  EXPECT_EQ(merged.functions + merged.refused, 0u) << "another mapping's";
}

TEST(JitEhFrame, TheHeaderTablesEveryKeptFdeInAddressOrder) {
  std::string later = test::jitdump_eh_frame(low + 0x200, 40);
  std::string earlier = test::jitdump_eh_frame(low + 0x100, 21);
  std::vector<jitdump_code> code{function(low + 0x200, 40, later),
                                 function(low + 0x100, 21, earlier)};
  jit_eh_frame merged = merge_jit_eh_frames(code, low, high, section);
  std::uint64_t header_at = section + merged.bytes.size();
  std::vector<std::byte> header = jit_eh_frame_header(merged, section, header_at);
  ASSERT_EQ(header.size(), 12u + 2 * 8);
  EXPECT_EQ(header_at + 4 + static_cast<std::uint64_t>(load_i32(header, 4)), section)
      << "eh_frame_ptr";
  EXPECT_EQ(parse_fde_starts(header, header_at),
            (std::vector<std::uint64_t>{low + 0x100, low + 0x200}));
  EXPECT_EQ(header_at + static_cast<std::uint64_t>(load_i32(header, 16)),
            section + merged.fdes[1].offset)
      << "the first entry is the earlier function's FDE, though it came second";
  EXPECT_TRUE(jit_eh_frame_header(merged, section, section + (1ull << 33)).empty())
      << "a table 8 GiB away cannot reach the frames with 32 bits";
}

}  // namespace
}  // namespace arec::symbols
