// Parsing arec's end-of-run summary line.
#include "arec_summary.hpp"

#include <gtest/gtest.h>

namespace arec::e2e {
namespace {

TEST(ArecSummary, ParsesTheExactFormat) {
  auto summary = find_arec_summary(
      "arec: note: something\n"
      "arec: 1234 samples, 5 lost, 987654 bytes written to /tmp/dir with space/arec.data\n");
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->samples, 1234u);
  EXPECT_EQ(summary->lost, 5u);
  EXPECT_EQ(summary->bytes, 987654u);
  EXPECT_EQ(summary->path, "/tmp/dir with space/arec.data");
}

TEST(ArecSummary, ParsesTheRotationFormWithBothTotals) {
  auto summary = find_arec_summary(
      "arec: 30 samples, 1 lost, 5000 bytes written to 3 files; the last, /d/a, has "
      "b.data.20261125, "
      "has 1200 bytes\n");
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->samples, 30u);
  EXPECT_EQ(summary->bytes, 5000u);
  EXPECT_EQ(summary->files, 3u);
  EXPECT_EQ(summary->path, "/d/a, has b.data.20261125");
  EXPECT_EQ(summary->last_bytes, 1200u);
  auto single = find_arec_summary("arec: 3 samples, 0 lost, 77 bytes written to x.data\n");
  ASSERT_TRUE(single);
  EXPECT_EQ(single->files, 1u);
  EXPECT_EQ(single->last_bytes, 77u);
}

TEST(ArecSummary, RejectsOtherWordings) {
  EXPECT_FALSE(find_arec_summary(""));
  EXPECT_FALSE(find_arec_summary("arec: 12 samples, 0 lost, 10 bytes to x\n"));
  EXPECT_FALSE(
      find_arec_summary("[ perf record: Captured and wrote 0.008 MB s.data (181 samples) ]\n"));
  EXPECT_FALSE(find_arec_summary(" arec: 1 samples, 0 lost, 1 bytes written to x\n"));
}

}  // namespace
}  // namespace arec::e2e
