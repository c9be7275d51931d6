#pragma once
// The round engine's replan loop, one for both drivers (synergyd's
// daemon/round/round_planner.h and synergy-sim's kept leases): the core plans
// every round afresh, and a running job whose planned place or size differs
// from what it holds may keep what it holds (lease_fate.h, kKeepAsHeld).
// Such a job is pinned: the other jobs are planned again around what it
// holds, which can pin more, until a plan pins no new job or the plan was
// made again kMaxReplans times. A job the plan still re-places after the last of them
// is ended (its lease cannot be kept beside a plan that gave its resources
// away).
//
// The drivers differ only in what a plan is made from (synergyd: its nodes'
// ids less the pinned leases'; the simulator: its servers' capacities less
// the pinned slices), so each gives the loop its own `decide` and
// `plan_around`. Pure: the same first plan and callbacks give the same
// result.
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "synergy/lease_fate.h"
#include "synergy/plan.h"

namespace synergy {

// Plans made again around pinned jobs, at most (after the first). Each new
// plan follows a pass that pinned at least one more job, so the bound only
// matters where pins keep shifting the plan; no workload of the tests gets
// near eight.
inline constexpr int kMaxReplans = 8;

struct KeptLeases {
  // The last plan: the jobs not pinned, planned around the pinned ones.
  Plan plan;
  // Each pinned job's decision (kKeepAsHeld, with its reason), by job.
  std::map<JobId, LeaseDecision> pinned;
  int plans = 1;  // plans made, the first included
};

// `first`: the round's plan of every job. `held`: the jobs that hold a
// lease the round manages, in the order their decisions are taken.
// `decide(job, planned)`: what becomes of `job`'s lease given its
// assignment in the current plan (nullptr: not planned), the current plan
// being `first` or the latest `plan_around`'s. `plan_around(pinned)`: the
// plan of every job but `pinned` around what those hold.
KeptLeases KeepLeasesAsHeld(Plan first, const std::vector<JobId>& held,
                            const std::function<LeaseDecision(JobId, const Assignment* planned)>& decide,
                            const std::function<Plan(const std::set<JobId>& pinned)>& plan_around);

}  // namespace synergy
