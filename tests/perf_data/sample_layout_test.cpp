// sample_layout: where the ID and the call chain sit in a SAMPLE body, for arec's own layout
// (IP, TID, TIME, ID, CPU), with IDENTIFIER, with ADDR, and with PERIOD before the chain.
#include "perf_data/sample_layout.hpp"

#include <gtest/gtest.h>

namespace arec::perf_data {
namespace {

constexpr std::uint64_t arec_layout =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU;

TEST(SampleLayout, TheIdFollowsTimeAndAddrOrComesFirstAsIdentifier) {
  EXPECT_EQ(sample_id_offset(arec_layout), 24u);
  EXPECT_EQ(sample_id_offset(arec_layout | PERF_SAMPLE_ADDR), 32u);
  EXPECT_EQ(sample_id_offset((arec_layout & ~PERF_SAMPLE_ID) | PERF_SAMPLE_IDENTIFIER), 0u);
}

TEST(SampleLayout, TheCallChainFollowsEveryFixedFieldBeforeIt) {
  EXPECT_EQ(sample_callchain_offset(arec_layout | PERF_SAMPLE_CALLCHAIN), 40u);
  EXPECT_EQ(sample_callchain_offset(arec_layout | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN), 48u);
  EXPECT_EQ(sample_callchain_offset((arec_layout & ~PERF_SAMPLE_ID) | PERF_SAMPLE_IDENTIFIER |
                                    PERF_SAMPLE_CALLCHAIN),
            40u);
}

}  // namespace
}  // namespace arec::perf_data
