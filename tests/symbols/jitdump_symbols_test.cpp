// jitdump_symbols: a dump's CODE_LOAD and CODE_MOVE records become the lines of a perf map, in
// the dump's order (the last one written names reused memory), in either byte order; a record
// cut short, or malformed, names nothing after it, and a name cannot add lines of its own.
#include "symbols/jitdump_symbols.hpp"

#include <gtest/gtest.h>

#include "support/jitdump_bytes.hpp"

namespace arec::symbols {
namespace {

std::string lines_of(const std::string& dump) {
  return jitdump_as_perf_map(std::as_bytes(std::span{dump}));
}

// A CODE_MOVE of the code `index` from `from` to `to`.
std::string code_move(std::uint64_t index, std::uint64_t from, std::uint64_t to,
                      std::uint64_t size) {
  std::string payload;
  for (std::uint32_t id : {1234u, 1234u}) test::put_u32(payload, id);
  for (std::uint64_t value : {from, from, to, size, index}) test::put_u64(payload, value);
  return test::jitdump_record_prefix(1, static_cast<std::uint32_t>(16 + payload.size())) + payload;
}

TEST(JitdumpSymbols, LoadsAndMovesAreLinesInTheDumpsOrder) {
  std::string dump = test::jitdump_header() +
                     test::jitdump_code_load("JS:*hot /a.js:1:2", 16, false, 0x7f0000001000) +
                     test::jitdump_code_load("JS:~cold", 8, false, 0x7f0000002000) +
                     code_move(1, 0x7f0000001000, 0x7f0000003000, 16);
  EXPECT_EQ(lines_of(dump),
            "7f0000001000 10 JS:*hot /a.js:1:2\n"
            "7f0000002000 8 JS:~cold\n"
            "7f0000003000 10 JS:~cold\n")
      << "both loads have code_index 1: the move moves the one loaded last";
}

TEST(JitdumpSymbols, ADumpInTheOtherByteOrderNamesTheSame) {
  std::string dump =
      test::jitdump_header(true) + test::jitdump_code_load("JS:*hot", 16, true, 0x7f0000001000);
  EXPECT_EQ(lines_of(dump), "7f0000001000 10 JS:*hot\n");
}

TEST(JitdumpSymbols, ACutOrMalformedDumpNamesWhatCameBefore) {
  std::string good = test::jitdump_header() + test::jitdump_code_load("JS:*a", 8, false, 0x1000);
  std::string later = test::jitdump_code_load("JS:*b", 8, false, 0x2000);
  EXPECT_EQ(lines_of(good + later.substr(0, 40)), "1000 8 JS:*a\n");
  EXPECT_EQ(lines_of(good + test::jitdump_record_prefix(0, 0) + later), "1000 8 JS:*a\n");
  EXPECT_EQ(lines_of(test::jitdump_header(false, 0x11111111) + later), "");
  EXPECT_EQ(lines_of(good.substr(0, 30)), "");
  // A CODE_LOAD too short for its fixed fields is passed over.
  EXPECT_EQ(lines_of(good + test::jitdump_record_prefix(0, 24) + std::string(8, '\0') + later),
            "1000 8 JS:*a\n2000 8 JS:*b\n");
}

TEST(JitdumpSymbols, UnwindingInformationBelongsToTheNextLoadOnly) {
  std::string eh_frame = test::jitdump_eh_frame(0x1000, 8);
  std::string dump = test::jitdump_header() + test::jitdump_unwinding_info(eh_frame) +
                     test::jitdump_code_load("JS:*a", 8, false, 0x1000) +
                     test::jitdump_code_load("JS:*b", 8, false, 0x2000);
  std::vector<jitdump_code> code = jitdump_code_records(std::as_bytes(std::span{dump}));
  ASSERT_EQ(code.size(), 2u);
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(code[0].eh_frame.data()),
                             code[0].eh_frame.size()),
            eh_frame)
      << "the .eh_frame part, without the .eh_frame_hdr after it";
  EXPECT_TRUE(code[1].eh_frame.empty());

  // Sizes the record cannot hold: the header larger than the whole, or the whole than the record.
  std::string record = test::jitdump_unwinding_info(eh_frame);
  for (auto [field, value] : {std::pair{24, eh_frame.size() + 21}, std::pair{16, 4096ul}}) {
    std::string bad = record;
    std::string number;
    test::put_u64(number, value);
    bad.replace(field, 8, number);
    std::string dumped =
        test::jitdump_header() + bad + test::jitdump_code_load("JS:*a", 8, false, 0x1000);
    code = jitdump_code_records(std::as_bytes(std::span{dumped}));
    ASSERT_EQ(code.size(), 1u);
    EXPECT_TRUE(code[0].eh_frame.empty()) << "field at " << field;
  }
}

TEST(JitdumpSymbols, ANameCannotAddALineOfItsOwn) {
  std::string dump =
      test::jitdump_header() + test::jitdump_code_load("JS:*a\n2000 10 forged", 8, false, 0x1000);
  EXPECT_EQ(lines_of(dump), "1000 8 JS:*a 2000 10 forged\n");
}

}  // namespace
}  // namespace arec::symbols
