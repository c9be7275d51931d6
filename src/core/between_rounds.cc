#include "synergy/between_rounds.h"

#include <algorithm>

namespace synergy {

Plan LaunchBetweenRounds(const std::vector<JobId>& running,
                         const std::function<Plan(const std::set<JobId>& pinned)>& plan_around) {
  const std::set<JobId> pinned(running.begin(), running.end());
  Plan plan = plan_around(pinned);
  std::erase_if(plan.assignments, [&](const Assignment& a) { return pinned.count(a.job) > 0; });
  return plan;
}

}  // namespace synergy
