// DaemonState, rounds: the round input from jobs and nodes, the core's
// plan, and the diff of that plan against the current leases.
#include "daemon/daemon_state.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_format.h"
#include "daemon/round_input.h"
#include "daemon/sticky_servers.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

DaemonState::RoundSnapshot DaemonState::SnapshotForRound(int64_t now_ms) const {
  RoundSnapshot snap;
  // A node lent whole to a profiling lease sits out the round.
  std::set<std::string> profiling_nodes;
  for (const auto& [id, job] : jobs_.all()) {
    if (!job.has_lease() || !job.lease().profiling()) continue;
    for (const v1::LeaseSlice& s : job.lease().slices()) profiling_nodes.insert(s.node());
  }
  // Leases the round does not manage (finished or cancelled jobs whose
  // processes have not exited yet) keep their ids: the round plans without
  // them.
  std::map<std::string, v1::Node> adjusted;
  for (const auto& [name, n] : nodes_.all()) adjusted[name] = n.info;
  for (const auto& [id, job] : jobs_.all()) {
    if (!job.has_lease() || !Terminal(job)) continue;
    for (const v1::LeaseSlice& s : job.lease().slices()) {
      auto it = adjusted.find(s.node());
      if (it == adjusted.end()) continue;
      v1::NodeResources* cap = it->second.mutable_capacity();
      std::set<int> gpus(s.gpu_ids().begin(), s.gpu_ids().end()), cpus(s.cpu_ids().begin(), s.cpu_ids().end());
      v1::NodeResources left;
      for (int g : cap->gpu_ids()) if (!gpus.count(g)) left.add_gpu_ids(g);
      for (int c : cap->cpu_ids()) if (!cpus.count(c)) left.add_cpu_ids(c);
      left.set_mem_gb(std::max(0.0, cap->mem_gb() - s.mem_gb()));
      *cap = left;
    }
  }
  std::vector<const v1::Node*> usable;
  for (const auto& [name, node] : adjusted) {
    const v1::Node& n = node;
    if (n.alive() && !n.drained() && n.capacity().gpu_ids_size() > 0 && n.capacity().cpu_ids_size() > 0 &&
        n.capacity().mem_gb() > 0 && !profiling_nodes.count(name)) {
      usable.push_back(&n);
    }
  }
  RoundCluster rc = ClusterOf(usable);
  snap.cluster = std::move(rc.cluster);
  snap.node_names = std::move(rc.node_names);
  for (const std::string& id : queue_order_) {
    const v1::Job& job = jobs_.at(id);
    if (Terminal(job) || job.state() == v1::JOB_STATE_PROFILING) continue;
    if (WantsProfiling(job) && !ProfileWaitOver(job, now_ms)) continue;
    if (job.spec().gpus() > snap.cluster.total().gpus) continue;
    const JobRuntime& rt = runtime_.at(id);
    if (rt.finished) continue;  // its last checkpoint is confirmed: it is exiting
    const ModelSpec* measured = nullptr;
    if (job.spec().uses_agent() && job.has_measured_profile()) {
      if (auto m = ModelFromMeasured(job.measured_profile(), job.spec().gpus(), snap.cluster)) {
        snap.measured.push_back(std::move(*m));
        measured = &snap.measured.back();
      }
    }
    snap.views.push_back(ViewOf(job, zoo_, snap.cluster, measured));
    // Running now: for the starvation guard it last ran now, as the
    // simulator marks every job that ran in the round before.
    if (job.has_lease() && rt.launched()) snap.views.back().last_execution_end_s = now_ms / 1000.0;
  }
  return snap;
}

void DaemonState::AccountService(int64_t now_ms) {
  for (const auto& [id, job] : jobs_.all()) {
    if (!job.has_lease() || runtime_.at(id).launched_on.empty()) continue;
    // Time held, as the core's JobView::attained_service_s means it.
    v1::Job& held = jobs_.Edit(id);
    held.set_attained_service_ms(held.attained_service_ms() + (now_ms - last_accounted_ms_));
    MarkDirty(id);
  }
  last_accounted_ms_ = now_ms;
}

absl::Status DaemonState::RunRound(int64_t now_ms) {
  const auto start = std::chrono::steady_clock::now();
  Change change(*this);
  AccountService(now_ms);
  Batch batch;
  GrantProfilingLeases(batch, now_ms);
  NoteProfileWaitsOver(batch, now_ms);
  RoundSnapshot snap = SnapshotForRound(now_ms);
  ++round_;
  if (snap.cluster.num_servers() == 0) {
    AddDirtyJobs(batch);
    counters_.rounds++;
    return change.Commit(std::move(batch));
  }
  RoundInput in;
  in.now_s = now_ms / 1000.0;
  in.cluster = &snap.cluster;
  for (const JobView& v : snap.views) in.queue.push_back(&v);
  RoundResult r = ScheduleRound(in, *policy_, *mechanism_);
  // The queue keeps the policy's order for the next round (once stored).
  std::vector<std::string> order;
  {
    std::set<std::string> seen;
    for (const JobView* v : r.order) {
      order.push_back(JobIdString(v->id));
      seen.insert(order.back());
    }
    for (const std::string& id : queue_order_) {
      if (!seen.count(id)) order.push_back(id);
    }
  }
  for (const JobView* v : r.bumped) {
    v1::Job& job = jobs_.Edit(JobIdString(v->id));
    job.set_starvation_priority(1);
    Record(batch, job, "waited over 1000 hours: first in its class from now on", now_ms);
  }
  {
    std::map<std::string, const v1::Lease*> current;
    for (const auto& [id, job] : jobs_.all()) {
      if (job.has_lease() && !Terminal(job) && !job.lease().profiling() && !job.lease().ending()) {
        current[id] = &job.lease();
      }
    }
    StickToCurrentNodes(r.plan, snap.cluster, snap.node_names, current);
  }
  std::map<std::string, const Assignment*> planned;
  for (const Assignment& a : r.plan.assignments) planned[JobIdString(a.job)] = &a;

  // Pass 1: keep or end the current leases, so their ids are known.
  std::vector<std::string> held;
  for (const auto& [id, job] : jobs_.all()) {
    if (job.has_lease() && !Terminal(job) && !job.lease().profiling()) held.push_back(id);
  }
  for (const std::string& id : held) {
    const v1::Job& job = jobs_.at(id);
    auto p = planned.find(id);
    if (p != planned.end() && !job.lease().ending() && LeaseHolds(job.lease(), *p->second, snap.node_names)) {
      ++counters_.leases_kept;
      planned.erase(p);
      continue;
    }
    EndLease(jobs_.Edit(id), p == planned.end() ? "not in this round's plan" : "allocation changes", batch, now_ms);
  }
  // Pass 2: grant the rest.
  for (const Assignment& a : r.plan.assignments) {
    auto p = planned.find(JobIdString(a.job));
    if (p == planned.end()) continue;
    Grant(jobs_.Edit(p->first), a, snap.node_names, batch, now_ms);
  }
  // Jobs left waiting.
  std::vector<std::string> pending;
  for (const auto& [id, job] : jobs_.all()) {
    if (job.state() == v1::JOB_STATE_PENDING) pending.push_back(id);
  }
  for (const std::string& id : pending) {
    v1::Job& job = jobs_.Edit(id);
    const bool for_profile = WantsProfiling(job) && !ProfileWaitOver(job, now_ms);
    SetState(job, v1::JOB_STATE_QUEUED, for_profile ? "waiting for a free node to profile on" : "waiting for resources",
             now_ms);
    Record(batch, job, "queued", now_ms);
  }
  AddDirtyJobs(batch);
  counters_.rounds++;
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  queue_order_ = std::move(order);
  counters_.last_round_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  spdlog::debug("round {}: {} placed, {:.3f} ms", round_, r.plan.assignments.size(), counters_.last_round_ms);
  return absl::OkStatus();
}

}  // namespace synergy::daemon
