// DaemonState, tenants and users as rounds see them: their indices (the
// configured tenants first, in auth.tenants' order, so that the core's
// quotas are theirs; any other tenant and every user from its first
// usage on), and their recent GPU usage for fair share.
#include <algorithm>

#include "daemon/state/daemon_state.h"

namespace synergy::daemon {

int DaemonState::IndexTenant(const std::string& tenant) {
  auto [it, added] = tenant_index_.emplace(tenant, static_cast<int>(tenant_index_.size()));
  return it->second;
}

int DaemonState::IndexUser(const std::string& user) {
  auto [it, added] = user_index_.emplace(user, static_cast<int>(user_index_.size()));
  return it->second;
}

int DaemonState::UserIndexOf(const std::string& user) const {
  auto it = user_index_.find(user);
  return it == user_index_.end() ? -1 : it->second;
}

const TenantQuota* DaemonState::QuotaOf(const std::string& tenant) const {
  const int index = TenantIndexOf(tenant);
  if (index < 0 || index >= static_cast<int>(tenant_quotas_.quotas.size())) return nullptr;
  const TenantQuota& quota = tenant_quotas_.quotas[index];
  return quota.gpus > 0 ? &quota : nullptr;
}

std::map<std::string, int> DaemonState::GpusHeldByTenant() const {
  std::map<std::string, int> held;
  if (tenant_quotas_.quotas.empty()) return held;
  for (const auto& [id, job] : jobs_.all()) {
    for (const v1::LeaseSlice& s : job.lease().slices()) held[job.spec().tenant()] += s.gpu_ids_size();
  }
  return held;
}

void DaemonState::NoteGpuUsage(const v1::Job& job, double gpu_seconds, int64_t at_ms) {
  counters_.tenant_gpu_seconds[job.spec().tenant()] += gpu_seconds;
  if (!tenant_usage_) return;
  tenant_usage_->Add(IndexTenant(job.spec().tenant()), gpu_seconds, at_ms / 1000.0);
  user_usage_->Add(IndexUser(job.owner()), gpu_seconds, at_ms / 1000.0);
}

TenantQuotas DaemonState::TenantsForRound(int64_t now_ms) const {
  TenantQuotas out = tenant_quotas_;
  if (!tenant_usage_) return out;
  const double now_s = now_ms / 1000.0;
  out.usage.assign(tenant_index_.size(), 0);
  for (const auto& [name, index] : tenant_index_) {
    // Over its quota where it has one: a tenant entitled to more may use more.
    const int share =
        index < static_cast<int>(tenant_quotas_.quotas.size()) ? std::max(1, tenant_quotas_.quotas[index].gpus) : 1;
    out.usage[index] = tenant_usage_->At(index, now_s) / share;
  }
  out.user_usage.assign(user_index_.size(), 0);
  for (const auto& [name, index] : user_index_) out.user_usage[index] = user_usage_->At(index, now_s);
  return out;
}

void DaemonState::RestoreGpuUsage(int64_t now_ms) {
  if (!tenant_usage_) return;
  // What stored jobs held, as of when their last lease ended (a running
  // one's, now): the decay over a restart is kept, usage of jobs retired
  // into the history table is not.
  std::vector<const v1::Job*> by_time;
  for (const auto& [id, job] : jobs_.all()) {
    if (job.gpu_seconds() > 0) by_time.push_back(&job);
  }
  auto at = [&](const v1::Job* j) { return j->has_lease() ? now_ms : j->last_lease_end_unix_ms(); };
  std::stable_sort(by_time.begin(), by_time.end(), [&](const v1::Job* a, const v1::Job* b) { return at(a) < at(b); });
  for (const v1::Job* job : by_time) {
    tenant_usage_->Add(IndexTenant(job->spec().tenant()), job->gpu_seconds(), at(job) / 1000.0);
    user_usage_->Add(IndexUser(job->owner()), job->gpu_seconds(), at(job) / 1000.0);
  }
}

}  // namespace synergy::daemon
