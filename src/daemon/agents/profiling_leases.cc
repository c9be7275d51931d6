// LeaseActions, the profiling state: which jobs wait for a whole node to
// profile on, for how long, and the profiling leases lent before a round.
#include "daemon/round/lease_actions.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_format.h"
#include "service/job_arrays.h"
#include "service/names.h"

namespace synergy::daemon {

bool LeaseActions::WantsProfiling(const v1::Job& job) const {
  if (!job.spec().profile() || !job.spec().uses_agent() || job.has_measured_profile() || job.has_lease() ||
      state_.Terminal(job) || job.held() || DaemonState::AwaitsDependencies(job) ||
      state_.leases_.AnyEnding(job.id())) {
    return false;
  }
  // A capped array's jobs are not profiled: a profiling lease each would
  // pass the cap before any round counts them (they run unprofiled).
  if (service::ArrayCap(job.spec().array()) > 0) return false;
  // The profile is measured on one whole node; a job wider than every node
  // is scheduled unprofiled.
  for (const auto& [name, n] : state_.nodes_.all()) {
    if (n.info.capacity().gpu_ids_size() >= job.spec().gpus()) return true;
  }
  return false;
}

bool LeaseActions::ProfileWaitOver(const v1::Job& job, int64_t now_ms) const {
  return now_ms - job.submitted_unix_ms() >= state_.config_.profile_wait_ms();
}

void LeaseActions::GrantProfilingLeases(Batch& batch, int64_t now_ms) {
  // Higher priority classes first, then in queue order.
  std::vector<std::string> order;
  for (const std::string& id : state_.jobs_.queue_order()) {
    if (WantsProfiling(state_.jobs_.at(id))) order.push_back(id);
  }
  if (order.empty()) return;
  std::stable_sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
    return state_.jobs_.at(a).spec().priority() > state_.jobs_.at(b).spec().priority();
  });
  // GPUs each tenant's leases hold: a profiling lease never takes one past
  // its quota (it borrows nothing).
  std::map<std::string, int> tenant_gpus = state_.GpusHeldByTenant();
  auto within_quota = [&](const v1::Job& job) {
    const TenantQuota* quota = state_.QuotaOf(job.spec().tenant());
    return quota == nullptr || tenant_gpus[job.spec().tenant()] + job.spec().gpus() <= quota->gpus;
  };
  // Nodes with a lease on them, current or ending, are not free.
  auto busy = [&](const std::string& node) {
    return !state_.leases_.CurrentOn(node).empty() || !state_.leases_.EndingOn(node).empty();
  };
  for (const std::string& id : order) {
    const v1::Job& wanting = state_.jobs_.at(id);
    if (!WantsProfiling(wanting) || !within_quota(wanting)) continue;  // an earlier one took what it wanted
    // A node with nothing on it and enough GPUs: the job gets all its CPUs
    // and memory. Jobs larger than any node are scheduled unprofiled.
    for (const auto& [name, n] : state_.nodes_.all()) {
      if (busy(name) || !state_.nodes_.TakesPart(name) ||
          n.info.capacity().gpu_ids_size() < wanting.spec().gpus() || n.info.capacity().cpu_ids_size() == 0) {
        continue;
      }
      v1::Lease lease;
      lease.set_job_id(id);
      lease.set_epoch(state_.leases_.TakeEpoch());
      lease.set_speedup(1.0);
      lease.set_granted_unix_ms(now_ms);
      lease.set_profiling(true);
      v1::LeaseSlice* s = lease.add_slices();
      s->set_node(name);
      for (int i = 0; i < wanting.spec().gpus(); ++i) s->add_gpu_ids(n.info.capacity().gpu_ids(i));
      *s->mutable_cpu_ids() = n.info.capacity().cpu_ids();
      s->set_mem_gb(n.info.capacity().mem_gb());
      v1::Job& job = state_.jobs_.Edit(id);
      *job.mutable_lease() = lease;
      NoteLeaseNodes(job, lease);
      state_.leases_.IndexCurrent(lease);
      ++state_.counters_.leases_granted;
      batch.counters[DaemonState::kNextEpochCounter] = state_.leases_.next_epoch();
      state_.jobs_.Move(job, JobMove::kProfile, "profiling on a whole node", now_ms);
      state_.Record(batch, job, absl::StrFormat("profiling lease %d granted: %s", lease.epoch(), service::DescribeLease(lease)), now_ms);
      tenant_gpus[job.spec().tenant()] += job.spec().gpus();
      break;
    }
  }
}

void LeaseActions::NoteProfileWaitsOver(Batch& batch, int64_t now_ms) {
  for (const std::string& id : state_.jobs_.queue_order()) {
    if (state_.jobs_.RuntimeOf(id).profile_wait_told || !ProfileWaitOver(state_.jobs_.at(id), now_ms) || !WantsProfiling(state_.jobs_.at(id))) {
      continue;
    }
    state_.jobs_.EditRuntime(id).profile_wait_told = true;
    v1::Job& job = state_.jobs_.Edit(id);
    if (job.state() == v1::JOB_STATE_QUEUED) state_.jobs_.Move(job, JobMove::kWait, "waiting for resources (unprofiled)", now_ms);
    state_.Record(batch, job,
           absl::StrFormat("no node was free to profile on for %.0f s (profile_wait_s): scheduled unprofiled "
                           "until a round finds one free while the job holds no lease",
                           state_.config_.profile_wait_s),
           now_ms);
  }
}

}  // namespace synergy::daemon
