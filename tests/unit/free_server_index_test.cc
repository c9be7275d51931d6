// FreeServerIndex against the walk it replaces: for random servers,
// changed at random, the first server in index order with the free GPUs and
// the room asked for, from any starting index.
#include "synergy/free_server_index.h"

#include <algorithm>
#include <limits>
#include <random>

#include "gtest/gtest.h"

namespace synergy {
namespace {

int FirstByWalk(const std::vector<Resources>& available, int free_gpus, int from, const Resources& need) {
  for (int s = from; s < static_cast<int>(available.size()); ++s) {
    const Resources& a = available[s];
    if (a.gpus == free_gpus && need.cpus <= a.cpus && need.mem_gb <= a.mem_gb && need.storage_mbps <= a.storage_mbps) {
      return s;
    }
  }
  return -1;
}

// Random servers changed at random, each change followed by a random
// search checked against the walk. `value(k)` makes the k-th step of a
// dimension's values (k in 0..8): few distinct values, so many ties and
// exact equalities with the need.
template <typename Value>
void SearchAfterEveryChange(uint64_t seed, Value value, bool values_are_floats) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  for (int servers : {1, 2, 7, 8, 9, 64, 100, 600}) {
    std::vector<Resources> available(servers);
    auto random_room = [&] { return Resources{pick(9), value(3, pick(9)), value(62.5, pick(9)), 500.0 * pick(2)}; };
    for (Resources& r : available) r = random_room();
    FreeServerIndex index(available);
    int found = 0;
    for (int step = 0; step < 2000; ++step) {
      const int s = pick(servers);
      available[s] = random_room();
      index.Set(s, available[s]);
      const Resources need{1, value(3, pick(9)), value(62.5, pick(9)), 500.0 * pick(2)};
      const int free_gpus = 1 + pick(8);
      const int from = pick(servers + 1);
      const int want = FirstByWalk(available, free_gpus, from, need);
      ASSERT_EQ(index.FirstFitting(free_gpus, from, need), want)
          << servers << " servers, step " << step << ", free " << free_gpus << ", from " << from;
      // The top's look never rules out a count that holds the need; where
      // the values are floats exactly, the top is the very most of each
      // dimension, and it rules out exactly the counts where no server
      // holds some dimension of the need.
      const FreeServerIndex::Need ready(need);
      if (FirstByWalk(available, free_gpus, 0, need) >= 0) ASSERT_TRUE(index.MayHold(free_gpus, ready)) << step;
      if (values_are_floats) {
        const bool each_dimension_held =
            FirstByWalk(available, free_gpus, 0, Resources{1, need.cpus, -1, -1}) >= 0 &&
            FirstByWalk(available, free_gpus, 0, Resources{1, -1, need.mem_gb, -1}) >= 0 &&
            FirstByWalk(available, free_gpus, 0, Resources{1, -1, -1, need.storage_mbps}) >= 0;
        ASSERT_EQ(index.MayHold(free_gpus, ready), each_dimension_held) << step;
      }
      found += want >= 0;
    }
    if (servers > 2) EXPECT_GT(found, 100) << servers;  // the searches did find servers
  }
}

TEST(FreeServerIndexTest, FindsTheServerTheWalkWouldAfterEveryChange) {
  SearchAfterEveryChange(11, [](double unit, int k) { return unit * k; }, /*values_are_floats=*/true);
}

TEST(FreeServerIndexTest, FindsTheServerTheWalkWouldWhenRoomsAreNotFloats) {
  // Sums of tenths and thirds: the nodes' floats are rounded, rooms a
  // rounding apart share one float, and searches back out of near misses.
  SearchAfterEveryChange(12, [](double unit, int k) { return unit * k * 0.1 + k / 3.0; }, /*values_are_floats=*/false);
}

TEST(FreeServerIndexTest, SmallAndNegativeRoomsAndNeedsAreComparedAsTheWalkWould) {
  std::vector<Resources> available(20, Resources{1, -0.7, 0.0, 0});
  available[3] = Resources{1, -0.7 + 1e-16, -0.0, 0};
  available[6] = Resources{1, -1e-50, 1e-50, 0};
  available[11] = Resources{1, 0.0, -1e-45, 0};
  FreeServerIndex index(available);
  for (const Resources& need : {Resources{1, -0.7, 0, 0}, Resources{1, -0.7 + 1e-16, 0, 0}, Resources{1, -0.7 + 2e-16, 0, 0},
                                Resources{1, -1e-50, 0, 0}, Resources{1, -2e-50, 1e-50, 0}, Resources{1, 0, -1e-45, 0},
                                Resources{1, -0.0, -0.0, 0}, Resources{1, 1e-300, 0, 0}, Resources{1, -0.7, -2e-45, 0}}) {
    for (int from : {0, 1, 4, 7, 12}) {
      EXPECT_EQ(index.FirstFitting(1, from, need), FirstByWalk(available, 1, from, need))
          << "need cpus " << need.cpus << " mem " << need.mem_gb << " from " << from;
    }
  }
}

TEST(FreeServerIndexTest, ARoomOfNanHoldsNothingAndHidesNoOtherServer) {
  // NaN in slot 7: a node's maximum must not become NaN (SSE's max
  // returns its second operand when either is NaN) and hide slots 0-6.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int servers : {8, 80}) {
    std::vector<Resources> available(servers, Resources{1, 4, 10, 0});
    available[7] = Resources{1, nan, 10, 0};
    FreeServerIndex index(available);
    const Resources need{1, 1, 1, 0};
    EXPECT_EQ(index.FirstFitting(1, 0, need), 0) << servers;
    EXPECT_TRUE(index.MayHold(1, FreeServerIndex::Need(need))) << servers;
    EXPECT_EQ(index.FirstFitting(1, 7, need), servers > 8 ? 8 : -1) << servers;
  }
}

TEST(FreeServerIndexTest, AServerWithNoFreeGpuIsNeverFound) {
  FreeServerIndex index({Resources{0, 24, 500, 500}, Resources{2, 24, 500, 500}});
  EXPECT_EQ(index.FirstFitting(2, 0, Resources{1, 1, 1, 0}), 1);
  EXPECT_EQ(index.FirstFitting(1, 0, Resources{1, 1, 1, 0}), -1);
  index.Set(1, Resources{0, 24, 500, 500});
  EXPECT_EQ(index.FirstFitting(2, 0, Resources{1, 1, 1, 0}), -1);
}

TEST(FreeServerIndexTest, ANeedThatFoundNoServerFindsOneOnceARoomGrows) {
  // Each server holds the need in one dimension: the tree's most, though
  // not any one server, holds it.
  FreeServerIndex index({Resources{2, 8, 10, 0}, Resources{2, 1, 100, 0}, Resources{2, 1, 10, 0}});
  const Resources need{1, 4, 50, 0};
  EXPECT_EQ(index.FirstFitting(2, 0, need), -1);
  EXPECT_EQ(index.FirstFitting(2, 0, Resources{1, 5, 60, 0}), -1);  // more than a need that failed
  index.Set(1, Resources{2, 0.5, 100, 0});  // shrinks: still none
  EXPECT_EQ(index.FirstFitting(2, 0, need), -1);
  index.Set(2, Resources{2, 4, 50, 0});  // grows to hold it
  EXPECT_EQ(index.FirstFitting(2, 0, need), 2);
  EXPECT_EQ(index.FirstFitting(2, 1, need), 2);
  index.Set(2, Resources{1, 4, 50, 0});  // leaves the count; enters another
  EXPECT_EQ(index.FirstFitting(2, 0, need), -1);
  EXPECT_EQ(index.FirstFitting(1, 0, need), 2);
}

TEST(FreeServerIndexTest, AServerFilledAGpuAtATimeIsFoundInEachCountItPassesThrough) {
  // 100 servers with 8 free GPUs; server 40 is filled a GPU at a time, as
  // 1-GPU jobs fill it, and its room shrinks in step.
  std::vector<Resources> available(100, Resources{8, 24, 500, 500});
  FreeServerIndex index(available);
  const Resources need{1, 3, 62.5, 0};
  for (int free = 7; free >= 1; --free) {
    index.Set(40, Resources{free, 3.0 * free, 62.5 * free, 500});
    EXPECT_EQ(index.FirstFitting(free, 0, need), 40) << free;
    EXPECT_EQ(index.FirstFitting(free, 40, need), 40) << free;
    EXPECT_EQ(index.FirstFitting(free, 41, need), -1) << free;
    EXPECT_EQ(index.FirstFitting(free + 1, 0, need), free == 7 ? 0 : -1) << free;
    EXPECT_EQ(index.FirstFitting(8, 40, need), 41) << free;
  }
  // Its room shrinks in its count, then grows again.
  index.Set(40, Resources{1, 2, 62.5, 500});
  EXPECT_EQ(index.FirstFitting(1, 0, need), -1);
  EXPECT_FALSE(index.MayHold(1, FreeServerIndex::Need(need)));
  index.Set(40, Resources{1, 3, 62.5, 500});
  EXPECT_EQ(index.FirstFitting(1, 0, need), 40);
  index.Set(40, Resources{0, 0, 0, 500});
  EXPECT_EQ(index.FirstFitting(1, 0, need), -1);
}

TEST(FreeServerIndexTest, ServersThatStayInACountAreFoundInIndexOrderAsMoreArrive) {
  // Ten servers come into count 3 one after another, in no index order,
  // the first with too little room: each search finds the lowest that
  // holds the need, from anywhere, as servers come and go.
  std::vector<Resources> available(64, Resources{8, 24, 500, 500});
  FreeServerIndex index(available);
  const Resources need{1, 3, 62.5, 0};
  const std::vector<int> arriving = {50, 9, 31, 2, 60, 17, 44, 5, 38, 23};
  std::vector<int> in_count;
  for (int s : arriving) {
    index.Set(s, Resources{3, s == 50 ? 2.0 : 9.0, 187.5, 500});
    if (s != 50) in_count.push_back(s);
    std::sort(in_count.begin(), in_count.end());
    for (int from = 0; from <= 64; from += 7) {
      const auto it = std::lower_bound(in_count.begin(), in_count.end(), from);
      EXPECT_EQ(index.FirstFitting(3, from, need), it == in_count.end() ? -1 : *it) << s << " from " << from;
    }
  }
  // The arrivals kept now are 44, 5, 38 and 23, oldest first; the others
  // are in the tree. The oldest, the newest, one from the tree and one
  // from between leave.
  for (int s : {44, 23, 2, 5}) {
    index.Set(s, Resources{8, 24, 500, 500});
    in_count.erase(std::find(in_count.begin(), in_count.end(), s));
    for (int from = 0; from <= 64; from += 3) {
      const auto it = std::lower_bound(in_count.begin(), in_count.end(), from);
      EXPECT_EQ(index.FirstFitting(3, from, need), it == in_count.end() ? -1 : *it) << s << " from " << from;
    }
  }
}

TEST(FreeServerIndexTest, AnArrivalsRoomThatGrowsInPlaceIsFoundAndStaysFoundInTheTree) {
  std::vector<Resources> available(64, Resources{8, 24, 500, 500});
  FreeServerIndex index(available);
  index.Set(10, Resources{3, 2, 100, 500});
  index.Set(20, Resources{3, 8, 10, 500});
  // The count's most holds the need through two servers: the search fails
  // and is remembered.
  const Resources need{1, 4, 50, 0};
  ASSERT_TRUE(index.MayHold(3, FreeServerIndex::Need(need)));
  EXPECT_EQ(index.FirstFitting(3, 0, need), -1);
  index.Set(10, Resources{3, 4, 100, 500});  // grows in its count
  EXPECT_EQ(index.FirstFitting(3, 0, need), 10);
  // Four more arrive: 10 and 20 go into the tree with the rooms they have now.
  for (int s : {30, 31, 32, 33}) index.Set(s, Resources{3, 1, 1, 500});
  EXPECT_EQ(index.FirstFitting(3, 0, need), 10);
  EXPECT_EQ(index.FirstFitting(3, 11, Resources{1, 8, 10, 0}), 20);
  EXPECT_EQ(index.FirstFitting(3, 0, Resources{1, 1, 1, 0}), 10);
  EXPECT_EQ(index.FirstFitting(3, 21, Resources{1, 1, 1, 0}), 30);
}

TEST(FreeServerIndexTest, ANeedBelowOneThatFailedIsStillSearchedFor) {
  FreeServerIndex index({Resources{2, 3, 40, 0}, Resources{2, 1, 100, 0}});
  EXPECT_EQ(index.FirstFitting(2, 0, Resources{1, 4, 50, 0}), -1);
  EXPECT_EQ(index.FirstFitting(2, 0, Resources{1, 3, 40, 0}), 0);   // smaller in every dimension
  EXPECT_EQ(index.FirstFitting(2, 0, Resources{1, 0.5, 60, 0}), 1);  // smaller in one
}

TEST(FreeServerIndexTest, AFailedNeedIsFoundOnceAServerWithRoomForItComesIntoTheCount) {
  // The count's top holds the need (through two servers), so the failure
  // is a search's, and remembered.
  FreeServerIndex index({Resources{2, 8, 10, 0}, Resources{2, 1, 100, 0}, Resources{1, 4, 50, 0}});
  const FreeServerIndex::Need need(Resources{1, 4, 50, 0});
  ASSERT_TRUE(index.MayHold(2, need));
  EXPECT_EQ(index.FirstFitting(2, 0, need), -1);
  // Into the count from another, with room for less: still none.
  index.Set(2, Resources{2, 4, 45, 0});
  EXPECT_EQ(index.FirstFitting(2, 0, need), -1);
  EXPECT_EQ(index.FirstFitting(2, 0, Resources{1, 4, 45, 0}), 2);
  // Out of the count and back in with room for it: found.
  index.Set(2, Resources{1, 4, 50, 0});
  index.Set(2, Resources{2, 4, 50, 0});
  EXPECT_EQ(index.FirstFitting(2, 0, need), 2);
}

TEST(FreeServerIndexTest, ASearchBacksOutOfSubtreesThatHoldTheNeedOnlyAcrossServers) {
  // 80 servers: three levels. In each of the first 64, one dimension is
  // short, so the maxima of every subtree above them hold the need; server
  // 70 alone holds it.
  std::vector<Resources> available;
  for (int s = 0; s < 80; ++s) {
    available.push_back(s % 2 == 0 ? Resources{2, 8, 10, 0} : Resources{2, 1, 100, 0});
  }
  available[70] = Resources{2, 4, 50, 0};
  FreeServerIndex index(available);
  const Resources need{1, 4, 50, 0};
  EXPECT_EQ(index.FirstFitting(2, 0, need), 70);
  EXPECT_EQ(index.FirstFitting(2, 65, need), 70);
  EXPECT_EQ(index.FirstFitting(2, 71, need), -1);
  index.Set(70, Resources{2, 3.5, 50, 0});
  EXPECT_EQ(index.FirstFitting(2, 0, need), -1);
  index.Set(9, Resources{2, 4, 50, 0});
  EXPECT_EQ(index.FirstFitting(2, 0, need), 9);
}

TEST(FreeServerIndexTest, ANeedOfMinusInfinityFindsTheServersOfItsCountOnly) {
  // Empty slots hold -infinity too: they must not match it. 65 servers,
  // so that the tree's last nodes are partly empty.
  std::vector<Resources> available(65, Resources{1, 4, 50, 0});
  available[64] = Resources{2, 4, 50, 0};
  FreeServerIndex index(available);
  const double inf = std::numeric_limits<double>::infinity();
  const Resources any{1, -inf, -inf, -inf};
  EXPECT_EQ(index.FirstFitting(2, 0, any), 64);
  EXPECT_EQ(index.FirstFitting(1, 64, any), -1);
  EXPECT_EQ(index.FirstFitting(3, 0, any), -1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(index.FirstFitting(1, 0, Resources{1, nan, 0, 0}), -1);  // fits nowhere, as FitsIn says
}

TEST(FreeServerIndexTest, RoomsThatDifferFromTheNeedByLessThanAFloatAreComparedExactly) {
  // The nodes hold floats: 1 + 1e-12 and 1 + 2e-12 are one float. Server 3
  // is short of the need by 1e-12 CPUs and must be passed over for 70;
  // server 5 holds exactly the need.
  std::vector<Resources> available(80, Resources{1, 0.5, 10, 0});
  available[3] = Resources{1, 1 + 1e-12, 10, 0};
  available[70] = Resources{1, 2, 10, 0};
  FreeServerIndex index(available);
  const Resources need{1, 1 + 2e-12, 10, 0};
  EXPECT_EQ(index.FirstFitting(1, 0, need), 70);
  EXPECT_EQ(index.FirstFitting(1, 1, need), 70);
  index.Set(5, Resources{1, 1 + 2e-12, 10, 0});
  EXPECT_EQ(index.FirstFitting(1, 0, need), 5);
  // Memory 1e-13 short, on a need far above one float step.
  index.Set(2, Resources{1, 5, 12345.678901234, 0});
  EXPECT_EQ(index.FirstFitting(1, 0, Resources{1, 1, 12345.678901234 + 1e-11, 0}), -1);
  EXPECT_EQ(index.FirstFitting(1, 0, Resources{1, 1, 12345.678901234, 0}), 2);
}

TEST(FreeServerIndexTest, RoomsAndNeedsBeyondTheFloatsRangeAreFoundAsTheWalkWould) {
  std::vector<Resources> available(20, Resources{1, 1e300, 1e300, 0});
  available[4] = Resources{1, 2e300, 1e300, 0};
  available[9] = Resources{1, -1e300, 1e300, 0};
  FreeServerIndex index(available);
  EXPECT_EQ(index.FirstFitting(1, 0, Resources{1, 1.5e300, 0, 0}), 4);
  EXPECT_EQ(index.FirstFitting(1, 0, Resources{1, 3e300, 0, 0}), -1);
  EXPECT_EQ(index.FirstFitting(1, 0, Resources{1, 1e39, 1e39, 0}), 0);
  EXPECT_EQ(index.FirstFitting(1, 5, Resources{1, -1.5e300, 0, 0}), 5);
  EXPECT_EQ(index.FirstFitting(1, 9, Resources{1, -0.5e300, 0, 0}), 10);  // 9 is short
  EXPECT_EQ(index.FirstFitting(1, 9, Resources{1, -2e300, 0, 0}), 9);
}

}  // namespace
}  // namespace synergy
