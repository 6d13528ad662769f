// summary: the lines the recorder ends with, read back from summary_text for each kind of
// output (a file, rotated files, standard output, pushed windows) and each optional part.
#include "record/session/summary.hpp"

#include <gtest/gtest.h>

namespace arec::record {
namespace {

summary_facts one_file() {
  summary_facts facts;
  facts.total.samples = 1200;
  facts.total.lost = 0;
  facts.output.path = "perf.data";
  facts.output.bytes = 65536;
  facts.output.all_bytes = 65536;
  return facts;
}

TEST(Summary, AFileIsNamedWithItsSizeAndHowToLookAtIt) {
  EXPECT_EQ(summary_text(one_file()),
            "arec: 1200 samples, 0 lost, 65536 bytes written to perf.data\n"
            "arec: look at it with 'perf report -i perf.data' or 'arec report -i perf.data' (a "
            "page for any browser), or for hotspot: 'arec convert -i perf.data -o "
            "perf.converted.data' then 'hotspot perf.converted.data'\n");
}

TEST(Summary, RotatedFilesNameBothTotalsAndTheLastFile) {
  summary_facts facts = one_file();
  facts.output.path = "out.2026112600000000";
  facts.output.files = 3;
  facts.output.all_bytes = 300000;
  std::string text = summary_text(facts);
  EXPECT_EQ(text.substr(0, text.find('\n') + 1),
            "arec: 1200 samples, 0 lost, 300000 bytes written to 3 files; the last, "
            "out.2026112600000000, has 65536 bytes\n");
  EXPECT_NE(text.find("'perf report -i out.2026112600000000'"), std::string::npos) << text;
}

TEST(Summary, StandardOutputAndPushedWindowsHaveNothingToLookAt) {
  summary_facts piped = one_file();
  piped.output.path = "-";
  EXPECT_EQ(summary_text(piped), "arec: 1200 samples, 0 lost, 65536 bytes written to standard output\n");
  summary_facts pushed = one_file();
  pushed.transient = true;
  pushed.output.all_bytes = 999;
  EXPECT_EQ(summary_text(pushed), "arec: 1200 samples, 0 lost, 999 bytes recorded\n");
}

TEST(Summary, ThreadsLossesFailureCompressionAndRemediesEachHaveTheirLine) {
  summary_facts facts = one_file();
  facts.per_thread_lines = true;
  thread_summary thread;
  thread.cpus = "0-1";
  thread.affinity = "0";
  thread.ran_on = "0";
  thread.stats.samples = 1200;
  thread.stats.lost = 7;
  thread.stats.bytes_out = 65536;
  thread.stats.drains = 40;
  thread.cpu_seconds = 0.0125;
  facts.threads.push_back(thread);
  facts.losses = {{1, 5}, {-1, 2}};
  facts.total.lost = 7;
  facts.output.failure = "arec: the disk was full: perf.data holds what was written";
  facts.compression = {1000, 100};
  facts.remedies = {"-m 64 (the rings are 16 pages)"};
  std::string text = summary_text(facts);
  EXPECT_NE(text.find("arec: thread 0: cpus=0-1 affinity=0 ran_on=0 samples=1200 lost=7 "
                      "bytes=65536 drains=40 cpu_time=0.013s\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("arec: cpu 1 lost 5 samples (the ring was full)\n"), std::string::npos);
  EXPECT_NE(text.find("arec: a thread's ring lost 2 samples (it was full)\n"), std::string::npos);
  EXPECT_NE(text.find("\narec: the disk was full: perf.data holds what was written\n"),
            std::string::npos);
  EXPECT_NE(text.find("arec: compressed 1000 bytes to 100 (ratio 10.0)\n"), std::string::npos);
  EXPECT_NE(text.find("arec: 7 samples lost; to lose fewer:\narec:   -m 64 (the rings are 16 "
                      "pages)\n"),
            std::string::npos)
      << text;
  summary_facts quiet_threads = facts;
  quiet_threads.per_thread_lines = false;
  EXPECT_EQ(summary_text(quiet_threads).find("arec: thread 0:"), std::string::npos);
}

TEST(Summary, ANameWithoutDataSuffixGetsOneForItsConvertedFile) {
  summary_facts facts = one_file();
  facts.output.path = "trace";
  EXPECT_NE(summary_text(facts).find("'arec convert -i trace -o trace.converted.data'"),
            std::string::npos);
}

// --off-cpu: the samples and time written, and the blocked switch-outs left uncounted.
TEST(Summary, OffCpuTimeHasItsLineAndSaysWhatWasNotCounted) {
  summary_facts facts = one_file();
  facts.off_cpu = off_cpu_totals{.samples = 12, .blocked_ns = 1'606'000'000, .unattributed = 0};
  EXPECT_NE(summary_text(facts).find("arec: off-CPU time: 12 samples, 1.606 s blocked\n"),
            std::string::npos)
      << summary_text(facts);
  facts.off_cpu->unattributed = 3;
  EXPECT_NE(summary_text(facts).find(
                "arec: off-CPU time: 12 samples, 1.606 s blocked; 3 blocked switch-outs had no "
                "sampled stack and are not counted\n"),
            std::string::npos)
      << summary_text(facts);
  EXPECT_EQ(summary_text(one_file()).find("off-CPU"), std::string::npos);
}

// DEBUGINFOD_URLS set: what the recording's end fetched, and what stays unnamed; nothing asked
// (every sampled object named locally) and no server configured say nothing.
TEST(Summary, DebuginfodSaysWhatItFetchedAndWhatStaysUnnamed) {
  summary_facts facts = one_file();
  facts.debuginfod =
      symbols::debug_fetch_totals{.asked = 3, .files = 1, .bytes = 2'450'000, .unnamed = 2};
  EXPECT_NE(summary_text(facts).find("arec: debuginfod: fetched 1 debug files (2.5 MB) for 3 "
                                     "objects; 2 sampled objects still unnamed\n"),
            std::string::npos)
      << summary_text(facts);
  facts.debuginfod = symbols::debug_fetch_totals{};
  EXPECT_EQ(summary_text(facts).find("debuginfod"), std::string::npos);
  EXPECT_EQ(summary_text(one_file()).find("debuginfod"), std::string::npos);
}

}  // namespace
}  // namespace arec::record
