#include "synergy/lease_keeping.h"

#include <unordered_map>
#include <utility>

namespace synergy {

KeptLeases KeepLeasesAsHeld(Plan first, const std::vector<JobId>& held,
                            const std::function<LeaseDecision(JobId, const Assignment* planned)>& decide,
                            const std::function<Plan(const std::set<JobId>& pinned)>& plan_around) {
  KeptLeases out;
  out.plan = std::move(first);
  std::set<JobId> pins;
  for (int replan = 0; replan < kMaxReplans; ++replan) {
    std::unordered_map<JobId, const Assignment*> planned;
    for (const Assignment& a : out.plan.assignments) planned[a.job] = &a;
    bool pinned_more = false;
    for (JobId job : held) {
      if (pins.count(job)) continue;
      auto p = planned.find(job);
      LeaseDecision d = decide(job, p == planned.end() ? nullptr : p->second);
      if (d.fate != LeaseFate::kKeepAsHeld) continue;
      pinned_more = true;
      pins.insert(job);
      out.pinned.emplace(job, std::move(d));
    }
    if (!pinned_more) break;
    out.plan = plan_around(pins);
    ++out.plans;
  }
  return out;
}

}  // namespace synergy
