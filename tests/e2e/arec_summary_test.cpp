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

TEST(ArecSummary, RejectsOtherWordings) {
  EXPECT_FALSE(find_arec_summary(""));
  EXPECT_FALSE(find_arec_summary("arec: 12 samples, 0 lost, 10 bytes to x\n"));
  EXPECT_FALSE(
      find_arec_summary("[ perf record: Captured and wrote 0.008 MB s.data (181 samples) ]\n"));
  EXPECT_FALSE(find_arec_summary(" arec: 1 samples, 0 lost, 1 bytes written to x\n"));
}

}  // namespace
}  // namespace arec::e2e
