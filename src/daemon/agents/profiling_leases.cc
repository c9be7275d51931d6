// DaemonState, the profiling state: which jobs wait for a whole node to
// profile on, for how long, and the profiling leases lent before a round.
#include "daemon/state/daemon_state.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "service/names.h"

namespace synergy::daemon {

bool DaemonState::WantsProfiling(const v1::Job& job) const {
  if (!job.spec().profile() || !job.spec().uses_agent() || job.has_measured_profile() || job.has_lease() ||
      Terminal(job) || job.held() || leases_.AnyEnding(job.id())) {
    return false;
  }
  // The profile is measured on one whole node; a job wider than every node
  // is scheduled unprofiled.
  for (const auto& [name, n] : nodes_.all()) {
    if (n.info.capacity().gpu_ids_size() >= job.spec().gpus()) return true;
  }
  return false;
}

bool DaemonState::ProfileWaitOver(const v1::Job& job, int64_t now_ms) const {
  return now_ms - job.submitted_unix_ms() >= config_.profile_wait_ms();
}

void DaemonState::GrantProfilingLeases(Batch& batch, int64_t now_ms) {
  // Higher priority classes first, then in queue order.
  std::vector<std::string> order;
  for (const std::string& id : jobs_.queue_order()) {
    if (WantsProfiling(jobs_.at(id))) order.push_back(id);
  }
  if (order.empty()) return;
  std::stable_sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
    return jobs_.at(a).spec().priority() > jobs_.at(b).spec().priority();
  });
  // Nodes with a lease on them, current or ending, are not free.
  auto busy = [&](const std::string& node) {
    return !leases_.CurrentOn(node).empty() || !leases_.EndingOn(node).empty();
  };
  for (const std::string& id : order) {
    const v1::Job& wanting = jobs_.at(id);
    if (!WantsProfiling(wanting)) continue;  // an earlier one took what it wanted
    // A node with nothing on it and enough GPUs: the job gets all its CPUs
    // and memory. Jobs larger than any node are scheduled unprofiled.
    for (const auto& [name, n] : nodes_.all()) {
      if (busy(name) || !nodes_.TakesPart(name) ||
          n.info.capacity().gpu_ids_size() < wanting.spec().gpus() || n.info.capacity().cpu_ids_size() == 0) {
        continue;
      }
      v1::Lease lease;
      lease.set_job_id(id);
      lease.set_epoch(leases_.TakeEpoch());
      lease.set_speedup(1.0);
      lease.set_granted_unix_ms(now_ms);
      lease.set_profiling(true);
      v1::LeaseSlice* s = lease.add_slices();
      s->set_node(name);
      for (int i = 0; i < wanting.spec().gpus(); ++i) s->add_gpu_ids(n.info.capacity().gpu_ids(i));
      *s->mutable_cpu_ids() = n.info.capacity().cpu_ids();
      s->set_mem_gb(n.info.capacity().mem_gb());
      v1::Job& job = jobs_.Edit(id);
      *job.mutable_lease() = lease;
      NoteLeaseNodes(job, lease);
      leases_.IndexCurrent(lease);
      ++counters_.leases_granted;
      batch.counters[kNextEpochCounter] = leases_.next_epoch();
      jobs_.Move(job, JobMove::kProfile, "profiling on a whole node", now_ms);
      Record(batch, job, absl::StrFormat("profiling lease %d granted: %s", lease.epoch(), service::DescribeLease(lease)), now_ms);
      break;
    }
  }
}

void DaemonState::NoteProfileWaitsOver(Batch& batch, int64_t now_ms) {
  for (const std::string& id : jobs_.queue_order()) {
    if (jobs_.RuntimeOf(id).profile_wait_told || !ProfileWaitOver(jobs_.at(id), now_ms) || !WantsProfiling(jobs_.at(id))) {
      continue;
    }
    jobs_.EditRuntime(id).profile_wait_told = true;
    v1::Job& job = jobs_.Edit(id);
    if (job.state() == v1::JOB_STATE_QUEUED) jobs_.Move(job, JobMove::kWait, "waiting for resources (unprofiled)", now_ms);
    Record(batch, job,
           absl::StrFormat("no node was free to profile on for %.0f s (profile_wait_s): scheduled unprofiled "
                           "until a round finds one free while the job holds no lease",
                           config_.profile_wait_s),
           now_ms);
  }
}

}  // namespace synergy::daemon
