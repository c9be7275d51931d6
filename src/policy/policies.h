#pragma once
// The four queue orders, one per file; the registry (registry.cc) names them.
#include <memory>
#include <vector>

#include "synergy/policy.h"

namespace synergy::policies {

std::unique_ptr<Policy> MakeFifo();  // arrival order
std::unique_ptr<Policy> MakeSrtf();  // shortest remaining time first
std::unique_ptr<Policy> MakeLas();   // least attained GPU-service first
std::unique_ptr<Policy> MakeFtf();   // finish-time fairness (Themis)

// Remaining run time at the speed the job last ran, the way the reference's
// remaining_duration(fair) computes it: divided by the last round's speedup
// unless the mechanism is PROPORTIONAL.
inline double RemainingTime(const JobView& job, const PolicyContext& context) {
  double t = job.iteration_time_s * job.remaining_iterations;
  if (context.mechanism_uses_speedup) t /= job.last_round_speedup;
  return t;
}

}  // namespace synergy::policies
