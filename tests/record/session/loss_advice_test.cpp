// What the summary suggests when samples were lost.
#include "record/session/loss_advice.hpp"

#include <gtest/gtest.h>

namespace arec::record {
namespace {

loss_context lossy() {
  loss_context context;
  context.lost = 1234;
  context.ring_pages = 1;
  context.streaming_threads = 1;
  context.cpus = 8;
  context.frequency_hz = 4000;
  return context;
}

TEST(LossAdvice, NothingLostNothingSuggested) {
  loss_context context = lossy();
  context.lost = 0;
  EXPECT_TRUE(loss_remedies(context).empty());
}

TEST(LossAdvice, TinyRingOneThreadManyCpusAndHighFrequency) {
  EXPECT_EQ(loss_remedies(lossy()),
            (std::vector<std::string>{
                "use bigger ring buffers: -m 512 (now 1 page per cpu)",
                "drain with parallel threads: --threads (now 8 cpus share 1 streaming thread)",
                "sample less often: -F 1000 (now 4000 Hz)"}));
}

TEST(LossAdvice, RingGrowsFourfoldUpToALimit) {
  loss_context context = lossy();
  context.ring_pages = 1024;
  EXPECT_EQ(loss_remedies(context).front(),
            "use bigger ring buffers: -m 4096 (now 1024 pages per cpu)");
  context.ring_pages = max_advised_ring_pages;
  EXPECT_EQ(loss_remedies(context).front().find("-m"), std::string::npos);
}

TEST(LossAdvice, ThreadsOnlyWhenCpusShareAThread) {
  loss_context context = lossy();
  context.streaming_threads = 8;
  context.threads_given = true;
  for (const std::string& remedy : loss_remedies(context))
    EXPECT_EQ(remedy.find("--threads"), std::string::npos) << remedy;
  context.streaming_threads = 2;
  EXPECT_EQ(loss_remedies(context)[1],
            "drain with more threads: --threads=cpu (now 8 cpus share 2 streaming threads)");
}

TEST(LossAdvice, CompressionWhenWritingFastAndNotCompressed) {
  loss_context context = lossy();
  context.bytes_per_second = compression_advice_rate;
  EXPECT_EQ(loss_remedies(context)[2], "write less: -z (now 50 MB/s uncompressed)");
  context.compressed = true;
  for (const std::string& remedy : loss_remedies(context))
    EXPECT_EQ(remedy.find("-z"), std::string::npos) << remedy;
}

TEST(LossAdvice, PeriodGrowsInsteadOfFrequency) {
  loss_context context = lossy();
  context.frequency_hz.reset();
  context.period = 10000;
  EXPECT_EQ(loss_remedies(context).back(), "sample less often: -c 40000 (now -c 10000)");
}

TEST(LossAdvice, TracepointsGetNoRateAdvice) {
  loss_context context = lossy();
  context.frequency_hz.reset();
  for (const std::string& remedy : loss_remedies(context))
    EXPECT_EQ(remedy.find("less often"), std::string::npos) << remedy;
}

}  // namespace
}  // namespace arec::record
