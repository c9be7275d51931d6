#pragma once
// One scheduling round, in named phases:
//   1. order     the policy sorts the queue (stable; the queue keeps it),
//                then higher priority classes go first, and within a
//                class running jobs that cannot checkpoint (stable)
//   2. bump      jobs not run for over 1000 hours get priority 1 for good
//   3. select    the runnable set, as the policy's Selection says, from
//                the order tenants' quotas allow (tenant_quotas.h)
//   4. place     the mechanism turns it into a Plan
// Pure: the same inputs give the same RoundResult, byte for byte, in the
// simulator and in the daemon.
#include <vector>

#include "synergy/cluster.h"
#include "synergy/job.h"
#include "synergy/mechanism.h"
#include "synergy/placement_state.h"
#include "synergy/plan.h"
#include "synergy/policy.h"
#include "synergy/tenant_quotas.h"

namespace synergy {

// Jobs that have waited this long since they last ran (or arrived) are
// served first from the next round on (the reference's starvation guard).
inline constexpr double kStarvationLimitS = 1000.0 * 3600.0;

struct RoundInput {
  double now_s = 0;
  const Cluster* cluster = nullptr;
  // The queue in the order the previous round left it (arrival order for
  // jobs that are new). Pointers stay owned by the caller.
  std::vector<const JobView*> queue;
  bool reference_compatible = false;
  GpuPlacement gpu_placement = GpuPlacement::kConsolidate;
  // Tenants' quotas and fair share (tenant_quotas.h); null or inactive:
  // the round offers the ordered queue as it is.
  const TenantQuotas* tenants = nullptr;
};

struct RoundResult {
  // The queue after the policy's sort and the priority classes, and the
  // jobs whose priority becomes 1;
  // the pointers are RoundInput::queue's.
  std::vector<const JobView*> order;
  std::vector<const JobView*> bumped;
  Plan plan;
};

RoundResult ScheduleRound(const RoundInput& input, const Policy& policy,
                          const Mechanism& mechanism);

// Phases 1-3 alone, for a round that places in its own way
// (typed_round.h): the ordered queue, the jobs bumped, and the runnable
// set taken with `free_gpus` GPUs free.
struct RoundSelection {
  std::vector<const JobView*> order;
  std::vector<const JobView*> bumped;
  std::vector<const JobView*> runnable;
};
RoundSelection SelectForRound(const RoundInput& input, const Policy& policy, const Mechanism& mechanism,
                              int free_gpus);

// The runnable set as a mechanism that prefers large jobs first (TUNE)
// is offered it under kCountFitFirst: largest GPU count first within a
// priority class (running jobs that cannot checkpoint before the rest),
// stable.
void OfferLargestFirst(std::vector<const JobView*>& runnable);

}  // namespace synergy
