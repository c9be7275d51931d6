// ClientGateway, what a waiting job is told when it is read: the waiting
// jobs before it in the last round's policy order ("waiting: 3 jobs ahead
// in fifo order"), and when the next round is due (synergyctl counts down
// to it); one awaiting a dependency, which one and its state. Computed at
// each read from the queue, never stored: a stored
// countdown would be stale the moment it was written, and would cost a
// write per waiting job per round.
#include <map>

#include "absl/strings/str_format.h"
#include "daemon/api/client_gateway.h"

namespace synergy::daemon {

std::string ClientGateway::AtQuota(const v1::Job& job, const std::map<std::string, int>& tenant_gpus) const {
  const TenantQuota* quota = state_.QuotaOf(job.spec().tenant());
  if (quota == nullptr) return "";
  auto held = tenant_gpus.find(job.spec().tenant());
  const int gpus = held == tenant_gpus.end() ? 0 : held->second;
  if (gpus + job.spec().gpus() <= quota->gpus) return "";
  return absl::StrFormat("waiting: tenant %s holds %d of its quota of %d GPUs%s", job.spec().tenant(), gpus,
                         quota->gpus, quota->borrow ? " and none are free to borrow" : "");
}

bool ClientGateway::Waiting(const v1::Job& job) const {
  const bool waiting_state = job.state() == v1::JOB_STATE_PENDING || job.state() == v1::JOB_STATE_QUEUED ||
                             job.state() == v1::JOB_STATE_SUSPENDED;
  return waiting_state && !state_.Terminal(job) && !job.has_lease() && !job.held();
}

void ClientGateway::SayWhyWaiting(std::vector<v1::Job>& jobs) const {
  bool any = false;
  for (const v1::Job& job : jobs) any = any || Waiting(job);
  if (!any) return;
  // A tenant at its quota: its waiting jobs are told.
  const std::map<std::string, int> tenant_gpus = state_.GpusHeldByTenant();
  std::map<std::string, int> ahead;
  DaemonState::DependencyLookups lookups;
  int waiting = 0;
  for (const std::string& id : state_.jobs_.queue_order()) {
    auto it = state_.jobs_.find(id);
    if (it == state_.jobs_.end() || !Waiting(it->second) || DaemonState::AwaitsDependencies(it->second)) continue;
    ahead[id] = waiting++;
  }
  for (v1::Job& job : jobs) {
    if (!Waiting(job)) continue;
    // Which dependency, and its state now: no round places it before.
    if (DaemonState::AwaitsDependencies(job)) {
      job.set_reason(DescribeDependency(state_.DependenciesOf(job, &lookups)));
      continue;
    }
    if (state_.next_round_unix_ms() > 0) job.set_next_round_unix_ms(state_.next_round_unix_ms());
    auto a = ahead.find(job.id());
    if (a == ahead.end()) continue;
    job.set_jobs_ahead(a->second);
    if (job.reason() == "waiting for resources") {
      if (std::string quota = AtQuota(job, tenant_gpus); !quota.empty()) {
        job.set_reason(quota);
        continue;
      }
    }
    // The round's own word for a job it could not place.
    if (a->second > 0 && job.reason() == "waiting for resources") {
      job.set_reason(absl::StrFormat("waiting: %d job%s ahead in %s order", a->second, a->second == 1 ? "" : "s",
                                     state_.config_.policy));
    }
  }
}

}  // namespace synergy::daemon
