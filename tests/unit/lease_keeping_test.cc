// When a running job's lease survives a round whose plan differs from it,
// and what the rest of the plan may still take (daemon/round/lease_keeping.h).
#include "daemon/round/lease_keeping.h"

#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

const std::vector<std::string> kNodes = {"a", "b"};

v1::Lease Held(const std::string& node, int gpus, int cpus, double mem, double speedup = 1.0) {
  v1::Lease lease;
  lease.set_epoch(7);
  lease.set_speedup(speedup);
  v1::LeaseSlice* s = lease.add_slices();
  s->set_node(node);
  for (int i = 0; i < gpus; ++i) s->add_gpu_ids(i);
  for (int i = 0; i < cpus; ++i) s->add_cpu_ids(i);
  s->set_mem_gb(mem);
  return lease;
}

Assignment Planned(int server, int gpus, double cpus, double mem, double speedup = 1.0) {
  Assignment a;
  a.job = 1;
  a.speedup = speedup;
  a.slices.push_back(Slice{server, Resources{gpus, cpus, mem, 0}});
  return a;
}

LeaseFate Fate(const v1::Lease& held, const Assignment* planned, bool checkpoints, double gain = 0.1) {
  return DecideLease(held, planned, checkpoints, kNodes, gain).fate;
}

TEST(DecideLease, NotPlannedEnds) { EXPECT_EQ(Fate(Held("a", 1, 2, 4), nullptr, false), LeaseFate::kEnd); }

TEST(DecideLease, ThePlanGivingWhatItHoldsKeepsIt) {
  const Assignment same = Planned(0, 1, 2.6, 4);  // 2.6 cores are 2 whole ids
  EXPECT_EQ(Fate(Held("a", 1, 2, 4), &same, false), LeaseFate::kKeep);
}

TEST(DecideLease, ANodeThatLeftTheRoundEndsIt) {
  const Assignment elsewhere = Planned(1, 1, 2, 4);
  EXPECT_EQ(Fate(Held("drained", 1, 2, 4), &elsewhere, false), LeaseFate::kEnd);
}

TEST(DecideLease, AJobThePlanWouldMoveKeepsItsPlace) {
  const Assignment elsewhere = Planned(1, 1, 2, 4);
  EXPECT_EQ(Fate(Held("a", 1, 2, 4), &elsewhere, false), LeaseFate::kKeepAsHeld);
  EXPECT_EQ(Fate(Held("a", 1, 2, 4), &elsewhere, true), LeaseFate::kKeepAsHeld);
}

// Node a is a K80, where a unit of the job's speedup is worth 0.25 of one
// on the base type; node b a V100 (1). A move is worth a restart only to a
// type where the job runs faster by restart_gain, in the base type's units.
TEST(DecideLease, ACheckpointingJobMovesToAFasterGpuTypeOnly) {
  v1::Lease on_k80 = Held("a", 1, 2, 4, /*speedup=*/1.2);
  on_k80.set_service_weight(0.25);
  const Assignment on_v100 = Planned(1, 1, 2, 4, /*speedup=*/1.0);
  EXPECT_EQ(DecideLease(on_k80, &on_v100, true, kNodes, 0.1, 1.0).fate, LeaseFate::kEnd);
  EXPECT_NE(DecideLease(on_k80, &on_v100, true, kNodes, 0.1, 1.0).why.find("a faster GPU type"), std::string::npos);
  // A plain process is never restarted for it; nor a job for a type where
  // it would gain less than restart_gain (0.3 x 1.0 against 0.25 x 1.2).
  EXPECT_EQ(DecideLease(on_k80, &on_v100, false, kNodes, 0.1, 1.0).fate, LeaseFate::kKeepAsHeld);
  EXPECT_EQ(DecideLease(on_k80, &on_v100, true, kNodes, 0.1, 0.3).fate, LeaseFate::kKeepAsHeld);
  // Back to a slower type: it keeps its place.
  v1::Lease on_v100_held = Held("b", 1, 2, 4);
  on_v100_held.set_service_weight(1.0);
  const Assignment on_k80_planned = Planned(0, 1, 2, 4, 1.5);
  EXPECT_EQ(DecideLease(on_v100_held, &on_k80_planned, true, kNodes, 0.1, 0.25).fate, LeaseFate::kKeepAsHeld);
  // Moved within its type (no weight given): it keeps its place, as on one type.
  EXPECT_EQ(DecideLease(on_k80, &on_v100, true, kNodes, 0.1).fate, LeaseFate::kKeepAsHeld);
}

TEST(DecideLease, ACheckpointingJobMovesWhenThePlanConsolidatesIt) {
  v1::Lease spread = Held("a", 1, 2, 4);
  *spread.add_slices() = Held("b", 1, 2, 4).slices(0);
  const Assignment together = Planned(0, 2, 4, 8);
  EXPECT_EQ(Fate(spread, &together, true), LeaseFate::kEnd);
  EXPECT_EQ(Fate(spread, &together, false), LeaseFate::kKeepAsHeld);
}

TEST(DecideLease, APlainProcessIsNeverRestartedToBeResized) {
  const Assignment more_cpu_less_memory = Planned(0, 1, 3, 2.5);  // the share moved when a node drained
  const Assignment less = Planned(0, 1, 1, 1);
  EXPECT_EQ(Fate(Held("a", 1, 2, 4), &more_cpu_less_memory, false), LeaseFate::kKeepAsHeld);
  EXPECT_EQ(Fate(Held("a", 1, 2, 4), &less, false), LeaseFate::kKeepAsHeld);
}

TEST(DecideLease, ACheckpointingJobRestartsForAGainAboveTheMarginOnly) {
  const v1::Lease held = Held("a", 1, 2, 4, 1.0);
  const Assignment small_gain = Planned(0, 1, 3, 4, 1.05);
  const Assignment large_gain = Planned(0, 1, 6, 8, 1.5);
  EXPECT_EQ(Fate(held, &small_gain, true), LeaseFate::kKeepAsHeld);
  EXPECT_EQ(Fate(held, &large_gain, true), LeaseFate::kEnd);
  EXPECT_EQ(Fate(held, &small_gain, true, /*gain=*/0.0), LeaseFate::kEnd);
}

TEST(DecideLease, ACheckpointingJobGivesUpCoresThePlanGivesToOthers) {
  const Assignment shrunk = Planned(0, 1, 1, 4, 1.0);
  EXPECT_EQ(Fate(Held("a", 1, 3, 4, 1.3), &shrunk, true), LeaseFate::kEnd);
}

TEST(DecideLease, AJobThatFollowsResizesIsAmendedInPlaceGrowingOrShrinking) {
  v1::Lease held = Held("a", 1, 2, 4, 1.0);
  held.set_resizable(true);
  const Assignment small_gain = Planned(0, 1, 3, 4, 1.05);  // below restart_gain: a restart would not pay
  const Assignment shrunk = Planned(0, 1, 1, 2, 1.0);
  const Assignment less_memory = Planned(0, 1, 2, 3, 1.0);
  EXPECT_EQ(Fate(held, &small_gain, true), LeaseFate::kResize);
  EXPECT_EQ(Fate(held, &shrunk, true), LeaseFate::kResize);
  EXPECT_EQ(Fate(held, &less_memory, true), LeaseFate::kResize);
  const Assignment same = Planned(0, 1, 2, 4, 1.0);
  EXPECT_EQ(Fate(held, &same, true), LeaseFate::kKeep);
}

TEST(DecideLease, AResizableJobTheSamePlanWouldMoveIsNotResized) {
  v1::Lease held = Held("a", 1, 2, 4, 1.0);
  held.set_resizable(true);
  const Assignment elsewhere = Planned(1, 1, 3, 4, 1.2);  // other node: a move, not a resize
  EXPECT_EQ(Fate(held, &elsewhere, true), LeaseFate::kKeepAsHeld);
}

TEST(DecideLease, AMultiRankOrProfilingLeaseIsNeverResized) {
  v1::Lease two_ranks = Held("a", 1, 2, 4, 1.0);
  two_ranks.set_resizable(true);
  *two_ranks.add_slices() = two_ranks.slices(0);
  two_ranks.mutable_slices(1)->set_node("b");
  EXPECT_FALSE(Resizable(two_ranks));
  v1::Lease profiling = Held("a", 1, 2, 4, 1.0);
  profiling.set_resizable(true);
  profiling.set_profiling(true);
  EXPECT_FALSE(Resizable(profiling));
  v1::Lease unsaid = Held("a", 1, 2, 4, 1.0);
  EXPECT_FALSE(Resizable(unsaid)) << "its agent has not said it follows resizes";
  const Assignment shrunk = Planned(0, 1, 1, 4, 1.0);
  EXPECT_EQ(Fate(unsaid, &shrunk, true), LeaseFate::kEnd);
}

}  // namespace
}  // namespace synergy::daemon
