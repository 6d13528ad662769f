// jit_lines: a DEBUG_INFO record's entries as source lines by offset into the code: the entry at
// or before an offset gives its line, "\xff" repeats the previous file, V8's addresses (0x40
// past the instruction's) are read back, and entries cut short or without a line or file are
// passed over.
#include "symbols/jit_lines.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/jitdump_bytes.hpp"

namespace arec::symbols {
namespace {

constexpr std::uint64_t code = 0x7f0000001000;

// The entries of a record made by test::jitdump_debug_info (after its code_addr and nr_entry).
std::string entries_of(const std::vector<test::jitdump_line>& lines) {
  return test::jitdump_debug_info(code, lines).substr(16 + 16);
}

jit_line_table table_of(const std::string& entries, std::uint64_t count,
                        std::string_view name = "py::f") {
  return jit_line_table(std::as_bytes(std::span{entries}), count, false, code, 0x100, name);
}

std::string where(const std::optional<jit_source_line>& line) {
  return line ? std::string(line->file) + ":" + std::to_string(line->line) : "none";
}

TEST(JitLines, EachOffsetTakesTheLastEntryAtOrBeforeIt) {
  std::string entries = entries_of(
      {{code + 4, 10, "a.py"}, {code + 8, 11, "\xff"}, {code + 16, 12, "b.py"}});
  jit_line_table lines = table_of(entries, 3);
  EXPECT_EQ(where(lines.at(0)), "none") << "before the first entry";
  EXPECT_EQ(where(lines.at(4)), "a.py:10");
  EXPECT_EQ(where(lines.at(7)), "a.py:10");
  EXPECT_EQ(where(lines.at(8)), "a.py:11") << "\\xff: the file before";
  EXPECT_EQ(where(lines.at(500)), "b.py:12");
}

TEST(JitLines, V8sAddressesAreTheInstructionsPlus0x40) {
  std::string entries = entries_of({{code + 0x40, 5, "x.js"}, {code + 0x48, 6, "\xff"}});
  jit_line_table v8 = table_of(entries, 2, "JS:*f /x.js:1:10");
  EXPECT_EQ(where(v8.at(0)), "x.js:5");
  EXPECT_EQ(where(v8.at(8)), "x.js:6");
  jit_line_table other = table_of(entries, 2);
  EXPECT_EQ(where(other.at(8)), "none") << "another runtime's addresses are the instructions'";
  EXPECT_EQ(where(other.at(0x48)), "x.js:6");
}

TEST(JitLines, EntriesCutShortOrWithoutALineOrAFileArePassedOver) {
  std::string entries = entries_of({{code, 0, "a.py"}, {code + 8, 3, "\xff"}, {code + 16, 4, "b.py"}});
  jit_line_table lines = table_of(entries, 3);
  EXPECT_EQ(lines.size(), 2u) << "line 0 is no line";
  EXPECT_EQ(where(lines.at(8)), "a.py:3");
  EXPECT_EQ(table_of(entries, 2).size(), 1u) << "nr_entry bounds the entries read";
  EXPECT_EQ(table_of(entries, 1000).size(), 2u) << "so do the record's bytes";
  std::string cut = entries.substr(0, entries.find("b.py") + 2);  // the last file's NUL gone
  EXPECT_EQ(table_of(cut, 3).size(), 1u);
  EXPECT_EQ(table_of(entries_of({{code, 7, "\xff"}}), 1).size(), 0u) << "no file before it";
}

TEST(JitLines, ARecordWithAnEntryNoRuntimeWritesGivesNoLines) {
  // As node 20 writes some: a few bytes of garbage for the file, the next entry misaligned.
  EXPECT_EQ(table_of(entries_of({{code, 2, "\xcf\xa0\x03"}, {code + 8, 3, "\xff"}}), 2).size(), 0u);
  EXPECT_EQ(table_of(entries_of({{code, 2, "a.py"}, {code + 0x1000, 3, "\xff"}}), 2).size(), 0u)
      << "past the code";
  EXPECT_EQ(table_of(entries_of({{code - 8, 2, "a.py"}, {code, 3, "\xff"}}), 2).size(), 0u)
      << "before it";
  EXPECT_EQ(table_of(entries_of({{code, 20'000'000, "a.py"}}), 1).size(), 0u) << "a line too far";
  EXPECT_EQ(table_of(entries_of({{code, 2, "caf\xc3\xa9.py"}}), 1).size(), 1u) << "UTF-8 is fine";
}

}  // namespace
}  // namespace arec::symbols
