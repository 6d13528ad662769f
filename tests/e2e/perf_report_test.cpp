// The perf report parser and warning check, on text perf 6.1 printed.
#include "perf_report.hpp"

#include <gtest/gtest.h>

namespace arec::e2e {
namespace {

TEST(PerfReportParser, ReadsRowsAndSkipsComments) {
  const char* text =
      "# Samples: 501  of event 'cpu-clock:ppp'\n"
      "# Overhead  Shared Object  Symbol          \n"
      "# ........  .............  ................\n"
      "#\n"
      "    99.45%  hot_loop           [.] hot_function\n"
      "     0.55%  [kernel.kallsyms]  [k] _raw_spin_unlock_irqrestore\n"
      "\n"
      "# (Tip: To record every process run by a user: perf record -u <user>)\n";
  std::vector<report_row> rows = parse_perf_report(text);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].percent, 99.45);
  EXPECT_EQ(rows[0].dso, "hot_loop");
  EXPECT_EQ(rows[0].level, '.');
  EXPECT_EQ(rows[0].symbol, "hot_function");
  EXPECT_EQ(rows[1].dso, "[kernel.kallsyms]");
  EXPECT_EQ(rows[1].level, 'k');
  EXPECT_EQ(rows[1].symbol, "_raw_spin_unlock_irqrestore");
}

TEST(PerfReportParser, LostChunksAloneAreNotAFaultOfTheFile) {
  test::command_result run;
  run.err = "Warning:\nProcessed 572 events and lost 1 chunks!\n\nCheck IO/CPU overload!\n\n";
  EXPECT_TRUE(has_warning(run));
  EXPECT_FALSE(has_warning_besides_lost_chunks(run));
  run.err += "Warning: 3 out of order events recorded.\n";
  EXPECT_TRUE(has_warning_besides_lost_chunks(run));
}

TEST(PerfReportParser, FindsWarningsInAnyCase) {
  test::command_result run;
  run.err = "  Warning:\nProcessed 10 events and lost 2 chunks!\n";
  EXPECT_TRUE(has_warning(run));
  run.err = "WARNING: The perf.data file's data size field is 0\n";
  EXPECT_TRUE(has_warning(run));
  run.err = "";
  EXPECT_FALSE(has_warning(run));
}

}  // namespace
}  // namespace arec::e2e
