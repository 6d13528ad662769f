// maps: a new mapping replaces what it overlaps, in every overlap shape, and lookups find the
// map holding an address.
#include "model/maps.hpp"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

namespace arec::model {
namespace {

map make(std::uint64_t start, std::uint64_t end, std::uint64_t pgoff = 0,
         std::uint32_t prot = 0) {
  map m;
  m.start = start;
  m.end = end;
  m.pgoff = pgoff;
  m.prot = prot;
  return m;
}

// (start, end, pgoff, prot) of every map, in order.
std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint32_t>> layout(
    const maps& space) {
  std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint32_t>> out;
  for (const map& m : space.entries()) out.emplace_back(m.start, m.end, m.pgoff, m.prot);
  space.check_invariants();
  return out;
}

using L = std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint32_t>>;

TEST(Maps, DisjointMappingsStaySortedByAddress) {
  maps space;
  space.insert(make(0x3000, 0x4000, 0, 3));
  space.insert(make(0x1000, 0x2000, 0, 1));
  space.insert(make(0x5000, 0x6000, 0, 5));
  EXPECT_EQ(layout(space), (L{{0x1000, 0x2000, 0, 1}, {0x3000, 0x4000, 0, 3}, {0x5000, 0x6000, 0, 5}}));
}

TEST(Maps, NewMappingInsideOldOneSplitsIt) {
  maps space;
  space.insert(make(0x1000, 0x9000, 0x10000, 1));
  space.insert(make(0x3000, 0x5000, 0, 2));
  EXPECT_EQ(layout(space), (L{{0x1000, 0x3000, 0x10000, 1},
                              {0x3000, 0x5000, 0, 2},
                              {0x5000, 0x9000, 0x14000, 1}}));
}

TEST(Maps, NewMappingCoveringOldOnesRemovesThem) {
  maps space;
  space.insert(make(0x2000, 0x3000, 0, 1));
  space.insert(make(0x4000, 0x5000, 0, 1));
  space.insert(make(0x8000, 0x9000, 0, 9));
  space.insert(make(0x1000, 0x6000, 0, 2));
  EXPECT_EQ(layout(space), (L{{0x1000, 0x6000, 0, 2}, {0x8000, 0x9000, 0, 9}}));
}

TEST(Maps, NewMappingOverlappingLeftEdgeTrimsOldStart) {
  maps space;
  space.insert(make(0x3000, 0x6000, 0x100000, 1));
  space.insert(make(0x2000, 0x4000, 0, 2));
  EXPECT_EQ(layout(space), (L{{0x2000, 0x4000, 0, 2}, {0x4000, 0x6000, 0x101000, 1}}));
}

TEST(Maps, NewMappingOverlappingRightEdgeTrimsOldEnd) {
  maps space;
  space.insert(make(0x3000, 0x6000, 0x100000, 1));
  space.insert(make(0x5000, 0x8000, 0, 2));
  EXPECT_EQ(layout(space), (L{{0x3000, 0x5000, 0x100000, 1}, {0x5000, 0x8000, 0, 2}}));
}

TEST(Maps, NewMappingOverlappingTwoTrimsBoth) {
  maps space;
  space.insert(make(0x1000, 0x4000, 0, 1));
  space.insert(make(0x4000, 0x8000, 0, 3));
  space.insert(make(0x3000, 0x5000, 0, 2));
  EXPECT_EQ(layout(space),
            (L{{0x1000, 0x3000, 0, 1}, {0x3000, 0x5000, 0, 2}, {0x5000, 0x8000, 0x1000, 3}}));
}

TEST(Maps, ExactSameRangeReplacesOldMapping) {
  maps space;
  space.insert(make(0x1000, 0x2000, 0, 1));
  space.insert(make(0x1000, 0x2000, 0x7000, 2));
  EXPECT_EQ(layout(space), (L{{0x1000, 0x2000, 0x7000, 2}}));
}

TEST(Maps, AdjacentMappingsDoNotTouchEachOther) {
  maps space;
  space.insert(make(0x2000, 0x3000, 0, 1));
  space.insert(make(0x1000, 0x2000, 0, 2));
  space.insert(make(0x3000, 0x4000, 0, 3));
  EXPECT_EQ(layout(space), (L{{0x1000, 0x2000, 0, 2}, {0x2000, 0x3000, 0, 1}, {0x3000, 0x4000, 0, 3}}));
}

TEST(Maps, SharedStartOrEndLeavesOnlyTheRest) {
  maps space;
  space.insert(make(0x1000, 0x5000, 0, 1));
  space.insert(make(0x1000, 0x2000, 0, 2));  // same start
  space.insert(make(0x4000, 0x5000, 0, 3));  // same end
  EXPECT_EQ(layout(space),
            (L{{0x1000, 0x2000, 0, 2}, {0x2000, 0x4000, 0x1000, 1}, {0x4000, 0x5000, 0, 3}}));
}

TEST(Maps, EmptyRangeIsIgnored) {
  maps space;
  space.insert(make(0x1000, 0x1000));
  EXPECT_EQ(space.size(), 0u);
}

TEST(Maps, FindReturnsTheMapHoldingTheAddress) {
  maps space;
  auto object = std::make_shared<dso>("/lib/libc.so.6", dso_id{}, dso_kind::user);
  map m = make(0x7000, 0x9000, 0x2000);
  m.object = object;
  space.insert(m);
  space.insert(make(0x1000, 0x2000));
  auto found = space.find(0x8fff);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->start, 0x7000u);
  EXPECT_EQ(found->object, object);
  EXPECT_FALSE(space.find(0x9000));  // end is exclusive
  EXPECT_FALSE(space.find(0x6fff));
  EXPECT_FALSE(space.find(0x0));
  ASSERT_TRUE(space.find(0x1000));
  EXPECT_EQ(space.find(0x1000)->end, 0x2000u);
}

TEST(Maps, SplitPiecesShareTheDso) {
  maps space;
  auto object = std::make_shared<dso>("/bin/true", dso_id{}, dso_kind::user);
  map m = make(0x1000, 0x9000);
  m.object = object;
  space.insert(m);
  m.object.reset();
  space.insert(make(0x3000, 0x4000));
  EXPECT_EQ(space.find(0x1000)->object, object);
  EXPECT_EQ(space.find(0x3000)->object, nullptr);
  EXPECT_EQ(space.find(0x8000)->object, object);
  EXPECT_EQ(object.use_count(), 3);  // ours and two pieces
}

TEST(Maps, CopyStartsWithTheSameMappingsAndThenDiverges) {
  maps parent;
  parent.insert(make(0x1000, 0x2000, 0, 1));
  maps child{parent};
  child.insert(make(0x1000, 0x2000, 0, 2));
  EXPECT_EQ(layout(parent), (L{{0x1000, 0x2000, 0, 1}}));
  EXPECT_EQ(layout(child), (L{{0x1000, 0x2000, 0, 2}}));
}

}  // namespace
}  // namespace arec::model
