// The round engine's replan loop (synergy/lease_keeping.h), the one both
// drivers use: pins what the plan would re-place but keeps, plans the rest
// around the pins, stops when a plan pins nothing new or at the bound.
#include "synergy/lease_keeping.h"

#include "gtest/gtest.h"

namespace synergy {
namespace {

Plan PlanOf(std::vector<JobId> jobs) {
  Plan p;
  for (JobId j : jobs) p.assignments.push_back(Assignment{j, {}, 1.0, true});
  return p;
}

TEST(KeepLeasesAsHeld, PinsUntilAPlanPinsNothingNewAndPlansTheRestAroundThePins) {
  // Job 1 is re-placed by the first plan (kept as held); planned around it,
  // job 2 is re-placed too; around both, job 3 is planned as it holds.
  std::vector<std::set<JobId>> asked;
  KeptLeases kept = KeepLeasesAsHeld(
      PlanOf({1, 2, 3}), {1, 2, 3},
      [&](JobId job, const Assignment* planned) {
        if (planned == nullptr) return LeaseDecision{LeaseFate::kEnd, "not planned"};
        const bool moved = (job == 1 && asked.empty()) || (job == 2 && asked.size() == 1);
        return moved ? LeaseDecision{LeaseFate::kKeepAsHeld, "kept"} : LeaseDecision{LeaseFate::kKeep, ""};
      },
      [&](const std::set<JobId>& pinned) {
        asked.push_back(pinned);
        std::vector<JobId> rest;
        for (JobId j : {1, 2, 3}) {
          if (!pinned.count(j)) rest.push_back(j);
        }
        return PlanOf(rest);
      });
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0], (std::set<JobId>{1}));
  EXPECT_EQ(asked[1], (std::set<JobId>{1, 2}));
  EXPECT_EQ(kept.plans, 3);
  ASSERT_EQ(kept.plan.assignments.size(), 1u);
  EXPECT_EQ(kept.plan.assignments[0].job, 3);
  ASSERT_EQ(kept.pinned.size(), 2u);
  EXPECT_EQ(kept.pinned.at(1).fate, LeaseFate::kKeepAsHeld);
  EXPECT_EQ(kept.pinned.at(2).why, "kept");
}

TEST(KeepLeasesAsHeld, StopsAfterTheBoundWhenPinsKeepShiftingThePlan) {
  // Every plan re-places exactly one more job: the loop stops after
  // kMaxReplans plans around pins, with that many pinned.
  std::vector<JobId> held;
  for (JobId j = 1; j <= 20; ++j) held.push_back(j);
  int calls = 0;
  KeptLeases kept = KeepLeasesAsHeld(
      PlanOf(held), held,
      [&](JobId job, const Assignment*) {
        return job == calls + 1 ? LeaseDecision{LeaseFate::kKeepAsHeld, ""} : LeaseDecision{LeaseFate::kKeep, ""};
      },
      [&](const std::set<JobId>&) {
        ++calls;
        return PlanOf(held);
      });
  EXPECT_EQ(calls, kMaxReplans);
  EXPECT_EQ(kept.plans, kMaxReplans + 1);
  EXPECT_EQ(kept.pinned.size(), static_cast<size_t>(kMaxReplans));
}

TEST(KeepLeasesAsHeld, APlanThatKeepsEveryLeaseIsTheOnlyPlan) {
  int calls = 0;
  KeptLeases kept = KeepLeasesAsHeld(
      PlanOf({1, 2}), {1, 2}, [](JobId, const Assignment*) { return LeaseDecision{LeaseFate::kKeep, ""}; },
      [&](const std::set<JobId>&) {
        ++calls;
        return Plan{};
      });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(kept.plans, 1);
  EXPECT_EQ(kept.plan.assignments.size(), 2u);
  EXPECT_TRUE(kept.pinned.empty());
}

}  // namespace
}  // namespace synergy
