#include "synergy/tenant_quotas.h"

#include <algorithm>

namespace synergy {
namespace {

const TenantQuota* QuotaOf(const TenantQuotas& t, int tenant) {
  if (tenant < 0 || tenant >= static_cast<int>(t.quotas.size()) || t.quotas[tenant].gpus <= 0) return nullptr;
  return &t.quotas[tenant];
}

double UsageOf(const TenantQuotas& t, int tenant) {
  return tenant >= 0 && tenant < static_cast<int>(t.usage.size()) ? t.usage[tenant] : 0.0;
}

}  // namespace

std::vector<const JobView*> OfferWithinQuotas(const std::vector<const JobView*>& ordered, const TenantQuotas& tenants) {
  std::vector<const JobView*> order = ordered;
  if (!tenants.usage.empty()) {
    std::stable_sort(order.begin(), order.end(), [&](const JobView* a, const JobView* b) {
      if (a->priority_class != b->priority_class) return a->priority_class > b->priority_class;
      if (a->runs_without_checkpoint != b->runs_without_checkpoint) return a->runs_without_checkpoint;
      return UsageOf(tenants, a->tenant) < UsageOf(tenants, b->tenant);
    });
  }
  if (tenants.quotas.empty()) return order;
  std::vector<int> held(tenants.quotas.size(), 0);
  for (size_t t = 0; t < held.size() && t < tenants.pinned_gpus.size(); ++t) held[t] = tenants.pinned_gpus[t];
  std::vector<const JobView*> offered;
  std::vector<const JobView*> borrowing;
  offered.reserve(order.size());
  for (const JobView* job : order) {
    const TenantQuota* quota = QuotaOf(tenants, job->tenant);
    if (quota == nullptr) {
      offered.push_back(job);
      continue;
    }
    int& so_far = held[job->tenant];
    if (job->runs_without_checkpoint || so_far + job->gpus <= quota->gpus) {
      so_far += job->gpus;
      offered.push_back(job);
    } else if (quota->borrow) {
      borrowing.push_back(job);
    }
  }
  offered.insert(offered.end(), borrowing.begin(), borrowing.end());
  return offered;
}

}  // namespace synergy
