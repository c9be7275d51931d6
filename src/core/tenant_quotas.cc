#include "synergy/tenant_quotas.h"

#include <algorithm>
#include <cmath>

namespace synergy {
namespace {

const TenantQuota* QuotaOf(const TenantQuotas& t, int tenant) {
  if (tenant < 0 || tenant >= static_cast<int>(t.quotas.size()) || t.quotas[tenant].gpus <= 0) return nullptr;
  return &t.quotas[tenant];
}

double UsageOf(const std::vector<double>& usage, int key) {
  return key >= 0 && key < static_cast<int>(usage.size()) ? usage[key] : 0.0;
}

}  // namespace

std::vector<const JobView*> OfferWithinQuotas(const std::vector<const JobView*>& ordered, const TenantQuotas& tenants) {
  std::vector<const JobView*> order = ordered;
  if (!tenants.usage.empty()) {
    std::stable_sort(order.begin(), order.end(), [&](const JobView* a, const JobView* b) {
      if (a->priority_class != b->priority_class) return a->priority_class > b->priority_class;
      if (a->runs_without_checkpoint != b->runs_without_checkpoint) return a->runs_without_checkpoint;
      // The 1000-hour bump ranks above usage, as above the policy's order.
      if (a->priority != b->priority) return a->priority > b->priority;
      const double ta = UsageOf(tenants.usage, a->tenant), tb = UsageOf(tenants.usage, b->tenant);
      if (ta != tb) return ta < tb;
      return UsageOf(tenants.user_usage, a->user) < UsageOf(tenants.user_usage, b->user);
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

double DecayedUsage::Decayed(const Entry& e, double now_s) const {
  if (half_life_s_ <= 0 || now_s <= e.as_of_s) return e.value;
  return e.value * std::exp2(-(now_s - e.as_of_s) / half_life_s_);
}

void DecayedUsage::Add(int key, double amount, double now_s) {
  if (key < 0) return;
  if (key >= static_cast<int>(entries_.size())) entries_.resize(key + 1);
  Entry& e = entries_[key];
  e.value = Decayed(e, now_s) + amount;
  e.as_of_s = std::max(e.as_of_s, now_s);
}

double DecayedUsage::At(int key, double now_s) const {
  if (key < 0 || key >= static_cast<int>(entries_.size())) return 0;
  return Decayed(entries_[key], now_s);
}

}  // namespace synergy
