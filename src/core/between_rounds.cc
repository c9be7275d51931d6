#include "synergy/between_rounds.h"

#include <algorithm>

namespace synergy {

Plan LaunchBetweenRounds(const std::vector<JobId>& running, int widest_server_gpus,
                         const std::function<Plan(const std::set<JobId>& pinned)>& plan_around) {
  const std::set<JobId> pinned(running.begin(), running.end());
  Plan plan = plan_around(pinned);
  std::erase_if(plan.assignments, [&](const Assignment& a) {
    const bool split = static_cast<int>(a.slices.size()) > ServersNeeded(a.Total().gpus, widest_server_gpus);
    return pinned.count(a.job) > 0 || split;
  });
  return plan;
}

}  // namespace synergy
