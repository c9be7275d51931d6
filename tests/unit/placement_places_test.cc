// A placed job's place (its position in the plan's order): what the
// mechanisms look their peers up by, and what Find, Release and ReplaceAt
// keep consistent with the per-server lists.
#include <vector>

#include "gtest/gtest.h"
#include "synergy/placement_state.h"
#include "test_support.h"

namespace synergy {
namespace {

using Place = PlacementState::Place;

Assignment On(JobId job, std::vector<Slice> slices) {
  Assignment a;
  a.job = job;
  for (const Slice& s : slices) a.slices.push_back(s);
  a.speedup = 1.0;
  return a;
}

std::vector<Place> PlacesOn(PlacementState& state, int server) {
  const auto& list = state.places_on_server(server);
  return std::vector<Place>(list.begin(), list.end());
}

TEST(PlacementPlacesTest, AJobsPlaceIsWhereItWasCommittedAndItsServersListIt) {
  const Cluster cluster = testing::Homogeneous(2, 4, 12, 250);
  PlacementState state(cluster);
  state.Commit(On(7, {Slice{0, Resources{1, 3, 62.5, 100}}}));
  state.Commit(On(3, {Slice{0, Resources{2, 6, 125, 200}}, Slice{1, Resources{2, 6, 125, 200}}}));
  ASSERT_EQ(state.placed_count(), 2u);
  EXPECT_EQ(state.placed(0).job, 7);
  EXPECT_EQ(state.placed(1).job, 3);
  EXPECT_EQ(PlacesOn(state, 0), (std::vector<Place>{0, 1}));
  EXPECT_EQ(PlacesOn(state, 1), (std::vector<Place>{1}));
}

TEST(PlacementPlacesTest, FindSeesJobsCommittedAfterAnEarlierFind) {
  const Cluster cluster = testing::Homogeneous(2, 4, 12, 250);
  PlacementState state(cluster);
  state.Commit(On(10, {Slice{0, Resources{1, 3, 62.5, 100}}}));
  ASSERT_NE(state.Find(10), nullptr);
  EXPECT_EQ(state.Find(11), nullptr);
  state.Commit(On(11, {Slice{1, Resources{1, 3, 62.5, 100}}}));
  const Assignment* found = state.Find(11);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found, &state.placed(1));
  EXPECT_EQ(state.Find(10), &state.placed(0));
}

TEST(PlacementPlacesTest, ReleaseMovesEveryLaterJobUpAPlace) {
  const Cluster cluster = testing::Homogeneous(2, 4, 12, 250);
  PlacementState state(cluster);
  state.Commit(On(1, {Slice{0, Resources{1, 3, 62.5, 100}}}));
  state.Commit(On(2, {Slice{1, Resources{1, 3, 62.5, 100}}}));
  state.Commit(On(3, {Slice{0, Resources{1, 3, 62.5, 100}}, Slice{1, Resources{1, 3, 62.5, 100}}}));
  ASSERT_NE(state.Find(3), nullptr);  // the lookup is built before the release

  const Assignment released = state.Release(1);
  EXPECT_EQ(released.job, 1);
  ASSERT_EQ(state.placed_count(), 2u);
  EXPECT_EQ(state.placed(0).job, 2);
  EXPECT_EQ(state.placed(1).job, 3);
  EXPECT_EQ(PlacesOn(state, 0), (std::vector<Place>{1}));
  EXPECT_EQ(PlacesOn(state, 1), (std::vector<Place>{0, 1}));
  EXPECT_EQ(state.Find(1), nullptr);
  EXPECT_EQ(state.Find(3), &state.placed(1));
  EXPECT_EQ(state.available(0), (Resources{3, 9, 187.5, 400}));
}

TEST(PlacementPlacesTest, ReplaceAtKeepsThePlaceAndMovesTheResources) {
  const Cluster cluster = testing::Homogeneous(2, 4, 12, 250);
  PlacementState state(cluster);
  state.Commit(On(5, {Slice{0, Resources{2, 8, 125, 200}}}));
  state.Commit(On(6, {Slice{1, Resources{1, 3, 62.5, 100}}}));
  Slices smaller;
  smaller.push_back(Slice{0, Resources{2, 6, 100, 200}});
  state.ReplaceAt(0, smaller, 1.0, false);
  EXPECT_EQ(state.placed(0).job, 5);
  EXPECT_EQ(state.placed(0).slices[0].resources, (Resources{2, 6, 100, 200}));
  EXPECT_EQ(state.available(0), (Resources{2, 6, 150, 300}));
  EXPECT_EQ(PlacesOn(state, 0), (std::vector<Place>{0}));
  EXPECT_EQ(state.Find(5), &state.placed(0));
}

TEST(PlacementPlacesTest, AFitThatFailedSucceedsOnceReplaceAtShrinksAPeer) {
  // Through the index (from any size), which remembers the failed fit.
  const Cluster cluster = testing::Homogeneous(2, 4, 12, 250);
  PlacementState state(cluster, GpuPlacement::kConsolidate, /*indexed_from_servers=*/0);
  // Server 0 is left short of CPUs, server 1 of memory: together, though
  // not either, they hold the demand, so the fit searches and fails.
  state.Commit(On(1, {Slice{0, Resources{2, 10, 100, 100}}}));
  state.Commit(On(2, {Slice{1, Resources{2, 4, 240, 100}}}));
  const Resources demand{1, 4, 50, 100};
  EXPECT_FALSE(state.Fit(demand).has_value());
  Slices smaller;
  smaller.push_back(Slice{0, Resources{2, 6, 100, 100}});
  state.ReplaceAt(0, smaller, 1.0, false);
  const auto slices = state.Fit(demand);
  ASSERT_TRUE(slices.has_value());
  ASSERT_EQ(slices->size(), 1u);
  EXPECT_EQ((*slices)[0].server, 0);
}

}  // namespace
}  // namespace synergy
