// folded_writer: one "comm;root;...;leaf COUNT" line per stack, whatever the names hold.
#include "export/folded_writer.hpp"

#include <gtest/gtest.h>

namespace arec::exporting {
namespace {

// One sample of `count` in `comm`, main calling `leaf`.
profile one_stack(const std::string& comm, const std::string& leaf, std::int64_t count) {
  profile p;
  p.strings = {"", "cpu-clock_samples", "count", "comm", comm, "main", leaf};
  p.sample_types = {{1, 2}};
  p.functions = {{1, 5, 0}, {2, 6, 0}};
  p.locations = {{1, 0, 0x1000, 1}, {2, 0, 0x2000, 2}};
  p.samples = {{{2, 1}, {count}, {{3, 4, 0}}}};
  return p;
}

TEST(FoldedWriter, ANameMakesNoFrameLineOrCountOfItsOwn) {
  // A comm set with prctl, a symbol from a perf map: what a process names itself.
  EXPECT_EQ(folded_text(one_stack("x 999;a;fake_frame 5521\nvictim", "leaf", 2)),
            "x 999:a:fake_frame 5521?victim;main;leaf 2\n");
  EXPECT_EQ(folded_text(one_stack("app", "js;fake\r\n7", 3)), "app;main;js:fake??7 3\n");
}

TEST(FoldedWriter, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
  EXPECT_EQ(folded_text(one_stack("\xff", "hot\xc0", 1)), "\xef\xbf\xbd;main;hot\xef\xbf\xbd 1\n");
}

TEST(FoldedWriter, OrdinaryNamesAreAsTheyAre) {
  EXPECT_EQ(
      folded_text(one_stack("hot_loop", "std::vector<int>::at(unsigned long) [clone .cold]", 4)),
      "hot_loop;main;std::vector<int>::at(unsigned long) [clone .cold] 4\n");
}

}  // namespace
}  // namespace arec::exporting
