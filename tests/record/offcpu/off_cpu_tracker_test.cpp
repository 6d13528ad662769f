// off_cpu_tracker: blocks are measured from a blocked switch-out to the next switch-in, charged
// to the stack of the switch-out; long ones go out at once, short ones summed per thread and
// stack until a cut; preemption is not off-CPU time; the stop ends every open block.
#include "record/offcpu/off_cpu_tracker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "support/allocation_counter.hpp"

namespace arec::record {
namespace {

constexpr std::uint64_t ms = 1'000'000;

struct taken {
  pid_t pid, tid;
  std::uint64_t time, period;
  std::vector<std::uint64_t> stack;
  bool operator==(const taken&) const = default;
};

class OffCpuTracker : public ::testing::Test {
 protected:
  off_cpu_tracker tracker_{500 * ms};
  std::vector<taken> out_;
  off_cpu_tracker::sink sink_ = [this](const off_cpu_sample& sample) {
    out_.push_back({sample.pid,
                    sample.tid,
                    sample.time,
                    sample.period_ns,
                    {sample.stack.begin(), sample.stack.end()}});
  };
  const std::vector<std::uint64_t> sleeping_{0x1000, 0x2000}, reading_{0x3000, 0x2000};
};

TEST_F(OffCpuTracker, ABlockAtLeastTheThresholdLongIsOneSampleAtItsEnd) {
  tracker_.switched_out(10, 11, 100 * ms, true, sleeping_);
  tracker_.switched_in(11, 700 * ms);
  tracker_.settle(UINT64_MAX, sink_);
  EXPECT_EQ(out_, (std::vector<taken>{{10, 11, 700 * ms, 600 * ms, sleeping_}}));
}

TEST_F(OffCpuTracker, ShortBlocksAreSummedPerThreadAndStackUntilACut) {
  for (std::uint64_t start : {0, 100, 200}) {
    tracker_.switched_out(10, 11, start * ms, true, sleeping_);
    tracker_.switched_in(11, (start + 30) * ms);
  }
  tracker_.switched_out(10, 11, 300 * ms, true, reading_);
  tracker_.switched_in(11, 310 * ms);
  tracker_.switched_out(10, 12, 300 * ms, true, sleeping_);
  tracker_.switched_in(12, 320 * ms);
  tracker_.settle(UINT64_MAX, sink_);
  EXPECT_TRUE(out_.empty());
  tracker_.take_sums(400 * ms, sink_);
  std::sort(out_.begin(), out_.end(), [](const taken& a, const taken& b) {
    return std::tie(a.tid, a.stack) < std::tie(b.tid, b.stack);
  });
  EXPECT_EQ(out_, (std::vector<taken>{{10, 11, 400 * ms, 90 * ms, sleeping_},
                                      {10, 11, 400 * ms, 10 * ms, reading_},
                                      {10, 12, 400 * ms, 20 * ms, sleeping_}}));
  out_.clear();
  tracker_.take_sums(500 * ms, sink_);
  EXPECT_TRUE(out_.empty()) << "a sum given out at a cut starts again from zero";
}

TEST_F(OffCpuTracker, PreemptionIsNotOffCpuTime) {
  tracker_.switched_out(10, 11, 0, false, sleeping_);
  tracker_.switched_in(11, 900 * ms);
  tracker_.finish(1000 * ms, sink_);
  EXPECT_TRUE(out_.empty());
}

TEST_F(OffCpuTracker, ASwitchInWithoutASwitchOutEndsNothing) {
  tracker_.switched_in(11, 900 * ms);
  tracker_.switched_out(10, 11, 1000 * ms, true, sleeping_);
  tracker_.switched_in(11, 1600 * ms);
  tracker_.settle(UINT64_MAX, sink_);
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].period, 600 * ms);
}

TEST_F(OffCpuTracker, TheStopEndsEveryOpenBlockThenGivesTheSums) {
  tracker_.switched_out(10, 11, 0, true, sleeping_);        // still blocked: 900 ms at the stop
  tracker_.switched_out(10, 12, 800 * ms, true, reading_);  // still blocked: 100 ms
  tracker_.finish(900 * ms, sink_);
  std::sort(out_.begin(), out_.end(), [](const taken& a, const taken& b) { return a.tid < b.tid; });
  EXPECT_EQ(out_, (std::vector<taken>{{10, 11, 900 * ms, 900 * ms, sleeping_},
                                      {10, 12, 900 * ms, 100 * ms, reading_}}));
}

TEST_F(OffCpuTracker, AThreadThatExitedIsForgotten) {
  tracker_.switched_out(10, 11, 0, true, sleeping_);
  tracker_.exited(11, 10 * ms);
  tracker_.settle(UINT64_MAX, sink_);
  EXPECT_EQ(tracker_.threads(), 0u);
  tracker_.finish(900 * ms, sink_);
  EXPECT_TRUE(out_.empty());
}

// hotspot forgets a process at its EXIT: sums written at the end would name no frame there.
TEST_F(OffCpuTracker, AnExitingThreadsSumsGoOutJustBeforeItsExit) {
  tracker_.switched_out(10, 11, 0, true, sleeping_);
  tracker_.switched_in(11, 30 * ms);
  tracker_.switched_out(10, 12, 0, true, reading_);
  tracker_.switched_in(12, 40 * ms);
  tracker_.exited(11, 100 * ms);
  tracker_.settle(UINT64_MAX, sink_);
  EXPECT_EQ(out_, (std::vector<taken>{{10, 11, 100 * ms - 1, 30 * ms, sleeping_}}));
  out_.clear();
  // A reused tid starts afresh: its first block is not added to the old thread's sum.
  tracker_.switched_out(20, 11, 200 * ms, true, sleeping_);
  tracker_.switched_in(11, 210 * ms);
  tracker_.settle(UINT64_MAX, sink_);
  tracker_.take_sums(300 * ms, sink_);
  std::sort(out_.begin(), out_.end(), [](const taken& a, const taken& b) { return a.tid < b.tid; });
  EXPECT_EQ(out_, (std::vector<taken>{{20, 11, 300 * ms, 10 * ms, sleeping_},
                                      {10, 12, 300 * ms, 40 * ms, reading_}}));
}

TEST_F(OffCpuTracker, DeepStacksAreCutToTheLimit) {
  std::vector<std::uint64_t> deep(300, 0x1234);
  tracker_.switched_out(10, 11, 0, true, deep);
  tracker_.switched_in(11, 600 * ms);
  tracker_.settle(UINT64_MAX, sink_);
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].stack.size(), off_cpu_tracker::max_stack_depth);
}

// The switch-in is often drained (from another cpu's ring) before the switch-out it ends, and a
// preempted switch-out may come between: switches are applied in time order, up to the bound.
TEST_F(OffCpuTracker, SwitchesDrainedOutOfOrderArePairedByTime) {
  tracker_.switched_in(11, 700 * ms);                  // cpu 1's ring, drained first
  tracker_.switched_out(10, 11, 800 * ms, false, {});  // preempted again on cpu 1
  tracker_.switched_in(11, 810 * ms);
  tracker_.switched_out(10, 11, 100 * ms, true, sleeping_);  // cpu 0's ring, drained last
  tracker_.settle(750 * ms, sink_);
  EXPECT_EQ(out_, (std::vector<taken>{{10, 11, 700 * ms, 600 * ms, sleeping_}}));
  EXPECT_EQ(tracker_.queued(), 2u) << "switches at or after the bound wait for the next round";
  tracker_.finish(900 * ms, sink_);
  EXPECT_EQ(out_.size(), 1u) << "a preemption is not off-CPU time";
}

TEST_F(OffCpuTracker, QueuedStacksSurviveASettleThatKeepsThem) {
  tracker_.switched_out(10, 11, 0, true, sleeping_);
  tracker_.switched_out(10, 12, 200 * ms, true, reading_);
  tracker_.switched_in(11, 600 * ms);
  tracker_.settle(100 * ms, sink_);  // 11's switch-out applied; 12's kept with its stack
  tracker_.switched_in(12, 900 * ms);
  tracker_.settle(UINT64_MAX, sink_);
  EXPECT_EQ(out_, (std::vector<taken>{{10, 11, 600 * ms, 600 * ms, sleeping_},
                                      {10, 12, 900 * ms, 700 * ms, reading_}}));
}

// Every context switch of the machine goes through here: once its threads, stacks and queues
// are warm, a switch-out, a switch-in, a settle and adding to a sum allocate nothing.
// Three rings' switches, drained in interleaved chunks and settled in rounds at rising bounds,
// give exactly what one pass over all of them in time order gives (threads migrate: a block's
// switch-in is often in another ring than its switch-out). Many seeds.
TEST_F(OffCpuTracker, SettlingChunksInRoundsGivesWhatOneOrderedPassGives) {
  struct change {
    std::uint64_t time;
    pid_t tid;
    int what;  // 0 blocked out, 1 preempted out, 2 in
    int ring;
  };
  for (unsigned seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 random(seed);
    std::vector<change> all;
    for (pid_t tid = 11; tid <= 14; ++tid) {
      std::uint64_t now = random() % (5 * ms);
      for (int block = 0; block < 30; ++block) {
        all.push_back({now, tid, static_cast<int>(random() % 2), static_cast<int>(random() % 3)});
        now += 1 + random() % (40 * ms);
        all.push_back({now, tid, 2, static_cast<int>(random() % 3)});
        now += 1 + random() % (3 * ms);
      }
    }
    auto feed = [&](off_cpu_tracker& tracker, const change& c) {
      if (c.what == 2)
        tracker.switched_in(c.tid, c.time);
      else
        tracker.switched_out(10, c.tid, c.time, c.what == 0, c.tid % 2 ? sleeping_ : reading_);
    };
    std::sort(all.begin(), all.end(), [](const change& a, const change& b) {
      return std::tie(a.time, a.tid) < std::tie(b.time, b.tid);
    });
    off_cpu_tracker reference{500 * ms};
    std::vector<taken> expected;
    off_cpu_tracker::sink keep_expected = [&](const off_cpu_sample& sample) {
      expected.push_back({sample.pid,
                          sample.tid,
                          sample.time,
                          sample.period_ns,
                          {sample.stack.begin(), sample.stack.end()}});
    };
    for (const change& c : all) feed(reference, c);
    reference.finish(2000 * ms, keep_expected);

    // Each ring's switches in time order, drained a chunk of 1-8 at a time from a random ring;
    // a round settles up to the oldest switch any ring still holds.
    std::vector<std::vector<change>> rings(3);
    for (const change& c : all) rings[c.ring].push_back(c);
    std::vector<std::size_t> drained(3, 0);
    auto left = [&] {
      return drained[0] < rings[0].size() || drained[1] < rings[1].size() ||
             drained[2] < rings[2].size();
    };
    while (left()) {
      std::size_t ring = random() % 3;
      for (std::size_t n = 1 + random() % 8; n > 0 && drained[ring] < rings[ring].size(); --n)
        feed(tracker_, rings[ring][drained[ring]++]);
      std::uint64_t bound = UINT64_MAX;
      for (std::size_t r = 0; r < 3; ++r)
        if (drained[r] < rings[r].size()) bound = std::min(bound, rings[r][drained[r]].time);
      if (random() % 3 == 0) tracker_.settle(bound, sink_);
    }
    tracker_.finish(2000 * ms, sink_);
    auto order = [](const taken& a, const taken& b) {
      return std::tie(a.tid, a.time, a.period, a.stack) <
             std::tie(b.tid, b.time, b.period, b.stack);
    };
    std::sort(expected.begin(), expected.end(), order);
    std::sort(out_.begin(), out_.end(), order);
    ASSERT_EQ(out_, expected);
    out_.clear();
  }
}

TEST_F(OffCpuTracker, WarmSwitchingAllocatesNothing) {
  ASSERT_TRUE(test::counting_works()) << "the test allocator is not in this binary";
  std::uint64_t now = 0;
  auto round = [&] {
    for (pid_t tid : {11, 12, 13}) {
      tracker_.switched_out(10, tid, now, true, tid == 12 ? reading_ : sleeping_);
      tracker_.switched_in(tid, now + (tid == 13 ? 600 : 20) * ms);  // long and short blocks
    }
    now += 700 * ms;
    tracker_.settle(now, sink_);
  };
  off_cpu_tracker::sink discard = [](const off_cpu_sample&) {};
  sink_ = discard;
  round();
  round();
  auto before = test::allocations();
  for (int i = 0; i < 100; ++i) round();
  EXPECT_EQ(test::allocations() - before, 0u);
}

}  // namespace
}  // namespace arec::record
