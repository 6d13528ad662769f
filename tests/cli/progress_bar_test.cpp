#include "cli/progress_bar.hpp"

#include <gtest/gtest.h>

#include "support/pseudo_terminal.hpp"

namespace arec::cli {
namespace {

using namespace std::chrono_literals;
using test::drain;
using test::pseudo_terminal;

TEST(ProgressBar, ShowsBytesDoneOfTotalRateAndTimeLeft) {
  EXPECT_EQ(format_progress(10'000'000, 40'000'000, 2000ms, 200),
            "arec: converting [#####...............]  25% 10.0 MB of 40.0 MB, 5.0 MB/s, 0:06 left");
  EXPECT_EQ(format_progress(40'000'000, 40'000'000, 8000ms, 200),
            "arec: converting [####################] 100% 40.0 MB of 40.0 MB, 5.0 MB/s, 0:00 left");
}

TEST(ProgressBar, SaysNoRateBeforeAnythingIsDone) {
  EXPECT_EQ(format_progress(0, 1000, 0ms, 200),
            "arec: converting [....................]   0% 0 B of 1.0 kB");
  EXPECT_EQ(format_progress(0, 0, 0ms, 200),
            "arec: converting [####################] 100% 0 B of 0 B");
}

TEST(ProgressBar, IsCutToLessThanTheTerminalWidth) {
  EXPECT_EQ(format_progress(1, 2, 1000ms, 30).size(), 29u);
}

TEST(ProgressBar, DrawsOnATerminalAtMostTenTimesASecondAndErasesItself) {
  pseudo_terminal pty;
  if (!pty.error.empty()) GTEST_SKIP() << "openpty: " << pty.error;
  {
    progress_bar bar(pty.slave.get(), true);
    ASSERT_TRUE(bar.active());
    bar.update(1, 4);
    bar.update(2, 4);  // within 100 ms of the first: not drawn
    bar.update(4, 4);  // the end: drawn whenever it comes
  }
  std::string shown = drain(pty.master.get());
  EXPECT_TRUE(shown.starts_with("\rarec: converting [#####...............]  25% 1 B of 4 B"))
      << shown;
  EXPECT_EQ(shown.find(" 50%"), std::string::npos) << shown;
  EXPECT_NE(shown.find("] 100% 4 B of 4 B"), std::string::npos) << shown;
  EXPECT_TRUE(shown.ends_with("\x1b[K\r\x1b[K")) << "erased when destroyed";
}

}  // namespace
}  // namespace arec::cli
