// DaemonState, rounds: the round input from jobs and nodes, the core's
// plan, and the diff of that plan against the current leases.
#include "daemon/daemon_state.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_format.h"
#include "daemon/lease_keeping.h"
#include "daemon/round_input.h"
#include "daemon/sticky_servers.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

DaemonState::RoundSnapshot DaemonState::SnapshotForRound(int64_t now_ms, const std::set<std::string>& pinned) const {
  RoundSnapshot snap;
  // A node lent whole to a profiling lease sits out the round.
  std::set<std::string> profiling_nodes;
  for (const auto& [id, job] : jobs_.all()) {
    if (!job.has_lease() || !job.lease().profiling()) continue;
    for (const v1::LeaseSlice& s : job.lease().slices()) profiling_nodes.insert(s.node());
  }
  // Leases the round does not manage (finished or cancelled jobs whose
  // processes have not exited yet, and pinned ones) keep their ids: the
  // round plans without them.
  std::map<std::string, v1::Node> adjusted;
  for (const auto& [name, n] : nodes_.all()) adjusted[name] = n.info;
  for (const auto& [id, job] : jobs_.all()) {
    if (!job.has_lease() || !(Terminal(job) || pinned.count(id))) continue;
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
    if (n.alive() && !n.drained() && !n.leaving() && n.capacity().gpu_ids_size() > 0 && n.capacity().cpu_ids_size() > 0 &&
        n.capacity().mem_gb() > 0 && !profiling_nodes.count(name)) {
      usable.push_back(&n);
    }
  }
  RoundCluster rc = ClusterOf(usable);
  snap.cluster = std::move(rc.cluster);
  snap.node_names = std::move(rc.node_names);
  for (const std::string& id : queue_order_) {
    const v1::Job& job = jobs_.at(id);
    if (Terminal(job) || job.state() == v1::JOB_STATE_PROFILING || pinned.count(id)) continue;
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
    // Service is stored every progress flush; the round counts it to now.
    snap.views.back().attained_service_s = ServiceNowMs(id, now_ms) / 1000.0;
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
    held.set_attained_service_ms(ServiceNowMs(id, now_ms));
    runtime_.Edit(id).service_from_ms = now_ms;
    MarkDirty(id);
  }
}

int64_t DaemonState::ServiceNowMs(const std::string& id, int64_t now_ms) const {
  const v1::Job& job = jobs_.at(id);
  const JobRuntime& rt = runtime_.at(id);
  const bool holding = job.has_lease() && !rt.launched_on.empty() && rt.service_from_ms > 0;
  return job.attained_service_ms() + (holding ? std::max<int64_t>(0, now_ms - rt.service_from_ms) : 0);
}

RoundResult DaemonState::PlanRound(const RoundSnapshot& snap, int64_t now_ms) const {
  RoundInput in;
  in.now_s = now_ms / 1000.0;
  in.cluster = &snap.cluster;
  for (const JobView& v : snap.views) in.queue.push_back(&v);
  RoundResult r = ScheduleRound(in, *policy_, *mechanism_);
  std::map<std::string, const v1::Lease*> current;
  for (const auto& [id, job] : jobs_.all()) {
    if (job.has_lease() && !Terminal(job) && !job.lease().profiling() && !job.lease().ending()) {
      current[id] = &job.lease();
    }
  }
  StickToCurrentNodes(r.plan, snap.cluster, snap.node_names, current);
  return r;
}

absl::Status DaemonState::RunRound(int64_t now_ms) {
  const auto start = std::chrono::steady_clock::now();
  Change change(*this);
  Batch batch;
  GrantProfilingLeases(batch, now_ms);
  NoteProfileWaitsOver(batch, now_ms);
  RoundSnapshot snap = SnapshotForRound(now_ms);
  ++round_;
  if (snap.cluster.num_servers() == 0) {
    counters_.rounds++;
    return change.Commit(std::move(batch));
  }
  RoundResult r = PlanRound(snap, now_ms);
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

  // Leases that stay put (lease_keeping.h): a running job the plan would
  // re-place or re-size, but that keeps what it holds, is pinned, and the
  // others are planned again around what the pinned ones hold, until no
  // new job is pinned. The plan and the leases then agree.
  std::vector<std::string> held;
  for (const auto& [id, job] : jobs_.all()) {
    if (job.has_lease() && !Terminal(job) && !job.lease().profiling()) held.push_back(id);
  }
  Plan plan = r.plan;
  std::vector<std::string> names = snap.node_names;
  std::map<std::string, LeaseDecision> pinned;
  std::set<std::string> pins;  // pinned's keys, for SnapshotForRound
  auto decide = [&](const std::string& id, const std::map<std::string, const Assignment*>& planned) {
    const v1::Job& job = jobs_.at(id);
    auto p = planned.find(id);
    return DecideLease(job.lease(), p == planned.end() ? nullptr : p->second, job.spec().uses_agent(), names,
                       config_.restart_gain);
  };
  constexpr int kMaxReplans = 8;
  for (int replan = 0; replan < kMaxReplans; ++replan) {
    std::map<std::string, const Assignment*> planned;
    for (const Assignment& a : plan.assignments) planned[JobIdString(a.job)] = &a;
    bool pinned_more = false;
    for (const std::string& id : held) {
      if (pinned.count(id) || jobs_.at(id).lease().ending()) continue;
      LeaseDecision d = decide(id, planned);
      if (d.fate != LeaseFate::kKeepAsHeld) continue;
      pinned_more = true;
      pins.insert(id);
      pinned.emplace(id, std::move(d));
    }
    if (!pinned_more) break;
    RoundSnapshot around = SnapshotForRound(now_ms, pins);
    plan = around.cluster.num_servers() > 0 ? PlanRound(around, now_ms).plan : Plan{};
    names = std::move(around.node_names);
  }
  std::map<std::string, const Assignment*> planned;
  for (const Assignment& a : plan.assignments) planned[JobIdString(a.job)] = &a;

  // Pass 1: keep or end the current leases, so their ids are known.
  for (const std::string& id : held) {
    const v1::Job& job = jobs_.at(id);
    if (job.lease().ending()) {
      EndLease(jobs_.Edit(id), "its lease is ending", batch, now_ms);
      continue;
    }
    if (auto pin = pinned.find(id); pin != pinned.end()) {
      ++counters_.leases_kept;
      // Said once per reason, not every round.
      if (job.reason() != pin->second.why) {
        v1::Job& kept = jobs_.Edit(id);
        kept.set_reason(pin->second.why);
        Record(batch, kept, absl::StrFormat("lease %d kept: %s", kept.lease().epoch(), pin->second.why), now_ms);
      }
      continue;
    }
    const LeaseDecision d = decide(id, planned);
    if (d.fate == LeaseFate::kKeep) {
      ++counters_.leases_kept;
      planned.erase(id);
      continue;
    }
    // kEnd, or a job still re-placed after kMaxReplans plans: it ends.
    EndLease(jobs_.Edit(id), d.why, batch, now_ms);
  }
  // Pass 2: grant the rest.
  for (const Assignment& a : plan.assignments) {
    auto p = planned.find(JobIdString(a.job));
    if (p == planned.end()) continue;
    Grant(jobs_.Edit(p->first), a, names, batch, now_ms);
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
  counters_.rounds++;
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  queue_order_ = std::move(order);
  counters_.last_round_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  spdlog::debug("round {}: {} placed, {:.3f} ms", round_, r.plan.assignments.size(), counters_.last_round_ms);
  return absl::OkStatus();
}

}  // namespace synergy::daemon
