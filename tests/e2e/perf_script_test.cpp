// The perf script parser the end-to-end tests rely on, checked on text perf 6.1 printed.
#include "perf_script.hpp"

#include <gtest/gtest.h>

namespace arec::e2e {
namespace {

TEST(PerfScriptParser, ReadsOneLineSamples) {
  const char* text =
      "        hot_loop  8853      5632fa09b1b5 hot_function (/tmp/e2etry/hot_loop)\n"
      "             :-1    -1  ffffffff8220342e _raw_write_unlock_irq ([kernel.kallsyms])\n"
      "            grep  9106      557252066be9 [unknown] (/usr/bin/grep)\n"
      "     Web Content  9107  7f00 js::RunScript(JSContext*) (/usr/lib/libxul.so)\n";
  std::vector<script_sample> samples = parse_perf_script(text);
  ASSERT_EQ(samples.size(), 4u);
  EXPECT_EQ(samples[0].comm, "hot_loop");
  EXPECT_EQ(samples[0].tid, 8853);
  ASSERT_EQ(samples[0].frames.size(), 1u);
  EXPECT_EQ(samples[0].frames[0].ip, 0x5632fa09b1b5u);
  EXPECT_EQ(samples[0].frames[0].symbol, "hot_function");
  EXPECT_EQ(samples[0].frames[0].dso, "/tmp/e2etry/hot_loop");
  EXPECT_TRUE(sampled_in(samples[0], "hot_function", "hot_loop"));
  EXPECT_EQ(samples[1].comm, ":-1");
  EXPECT_EQ(samples[1].tid, -1);
  EXPECT_EQ(samples[1].frames[0].dso, "[kernel.kallsyms]");
  EXPECT_EQ(samples[2].frames[0].symbol, "[unknown]");
  EXPECT_FALSE(sampled_in(samples[2], "hot_function", "hot_loop"));
  EXPECT_EQ(samples[3].comm, "Web Content");
  EXPECT_EQ(samples[3].tid, 9107);
  EXPECT_EQ(samples[3].frames[0].symbol, "js::RunScript(JSContext*)");
}

TEST(PerfScriptParser, ReadsCallChainsUnderTheirSample) {
  const char* text =
      "hot_loop  8829/8829  \n"  // "-F pid,tid" output: not ours, skipped with its frames
      "\t            11b5 hot_function (/tmp/hot_loop)\n"
      "\n"
      "hot_loop 8829 \n"
      "\t            11b5 hot_function (/tmp/hot_loop)\n"
      "\t            11f7 caller_function (/tmp/hot_loop)\n"
      "\t           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
      "\n";
  std::vector<script_sample> samples = parse_perf_script(text);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].comm, "hot_loop");
  EXPECT_EQ(samples[0].tid, 8829);
  ASSERT_EQ(samples[0].frames.size(), 3u);
  EXPECT_EQ(samples[0].frames[1].symbol, "caller_function");
  EXPECT_EQ(samples[0].frames[1].ip, 0x11f7u);
  EXPECT_EQ(samples[0].frames[2].dso, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

TEST(PerfScriptParser, KeepsSpacesInsideCommsAndSymbols) {
  std::vector<script_sample> samples = parse_perf_script(
      "arec worker 4242 \n"
      "\t          401000 std::vector<int, std::allocator<int> >::size() const (/usr/bin/arec)\n");
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].comm, "arec worker");
  ASSERT_EQ(samples[0].frames.size(), 1u);
  EXPECT_EQ(samples[0].frames[0].symbol, "std::vector<int, std::allocator<int> >::size() const");
  EXPECT_EQ(samples[0].frames[0].dso, "/usr/bin/arec");
}

TEST(PerfScriptParser, SharesCountOnlyAcceptedSamplesInTheProgramsOwnCode) {
  std::vector<script_sample> samples = parse_perf_script(
      "        hot_loop    10  1 hot_function (/x/hot_loop)\n"
      "        hot_loop    10  2 now_ms (/x/hot_loop)\n"
      "        hot_loop    10  3 hot_function (/x/hot_loop)\n"
      "           other    11  4 hot_function (/x/hot_loop)\n"
      "        hot_loop    10  5 schedule ([kernel.kallsyms])\n"
      "        hot_loop    10  6 memset (/usr/lib/libc.so.6)\n");
  sample_share share = share_in(samples, "hot_function", "hot_loop",
                                [](const script_sample& s) { return s.comm == "hot_loop"; });
  EXPECT_EQ(share.total, 3u);
  EXPECT_EQ(share.matching, 2u);
  EXPECT_DOUBLE_EQ(share.fraction(), 2.0 / 3.0);
}

}  // namespace
}  // namespace arec::e2e
