// DaemonState, nodes that go: a node leaving (shutting down), a node lost
// (silent past heartbeat_timeout_s), and the tick between rounds that
// finds them, requeues leases not re-adopted after a restart and presses
// ending leases past their grace.
#include "daemon/state/daemon_state.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "service/names.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

void DaemonState::Leave(NodeRecord& node, Batch& batch, int64_t now_ms) {
  const std::string& name = node.info.name();
  if (!node.info.leaving()) {
    node.info.set_leaving(true);
    spdlog::info("node {} is leaving: its leases end now and its jobs are requeued", name);
    const std::set<std::string> on_node = leases_.CurrentOn(name);  // a copy: EndLease changes it
    for (const std::string& id : on_node) {
      if (!Terminal(jobs_.at(id))) EndLease(jobs_.Edit(id), absl::StrCat("node ", name, " is leaving"), LeaseEndCause::kNodeLeaving, batch,
                                          now_ms);
    }
  }
  // Gone once nothing of it runs: its ids are free and it is not planned on.
  if (node.processes.empty() && leases_.HeldOn(name).empty()) {
    node.info.set_alive(false);
    leases_.DropStops(name);
    spdlog::info("node {} left", name);
  }
}

void DaemonState::LoseNode(NodeRecord& node, Batch& batch, int64_t now_ms) {
  node.info.set_alive(false);
  leases_.ReleaseAll(node.info.name());
  node.processes.clear();
  leases_.DropStops(node.info.name());
  // Its ranks of ending leases will never report: those leases are over.
  const std::set<LeaseTable::JobEpoch> ending = leases_.EndingOn(node.info.name());
  for (const auto& [id, epoch] : ending) {
    leases_.FinishEnding(id, epoch);
    // Its last lease is over (as HandleExit would say once every rank had
    // exited): it waits for the next.
    const v1::Job& job = jobs_.at(id);
    if (!job.has_lease() && !leases_.AnyEnding(id) &&
        (job.state() == v1::JOB_STATE_RUNNING || job.state() == v1::JOB_STATE_PROFILING)) {
      v1::Job& suspended = jobs_.Edit(id);
      jobs_.Move(suspended, JobMove::kSuspend, absl::StrFormat("lease %d lost with node %s", epoch, node.info.name()),
              now_ms);
      Record(batch, suspended, suspended.reason(), now_ms);
    }
  }
  const std::set<std::string> on_node = leases_.CurrentOn(node.info.name());
  for (const std::string& id : on_node) {
    v1::Job& job = jobs_.Edit(id);
    const int64_t epoch = job.lease().epoch();
    for (const v1::LeaseSlice& s : job.lease().slices()) {
      if (s.node() != node.info.name()) SendStop(s.node(), id, epoch, config_.lease_grace_ms());
    }
    DropLease(job, LeaseEndCause::kNodeLost, now_ms);
    if (!Terminal(job)) {
      jobs_.Move(job, JobMove::kRequeue, absl::StrFormat("node %s lost; requeued", node.info.name()), now_ms);
      ++counters_.jobs_requeued;
    }
    Record(batch, job, absl::StrFormat("lease %d lost with node %s", epoch, node.info.name()), now_ms);
  }
}

void DaemonState::RequeueUnadopted(Batch& batch, int64_t now_ms) {
  bool waiting = false;
  std::vector<std::string> overdue;
  for (const auto& [id, current] : jobs_.all()) {
    const LeaseTable::Launch& launch = leases_.LaunchOf(id);
    if (!current.has_lease() || launch.adopt_deadline_ms <= 0) continue;
    if (now_ms > launch.adopt_deadline_ms) {
      overdue.push_back(id);
    } else {
      waiting = true;
    }
  }
  for (const std::string& id : overdue) {
    v1::Job& job = jobs_.Edit(id);
    const int64_t epoch = job.lease().epoch();
    DropLease(job, LeaseEndCause::kNotReadopted, now_ms);
    if (!Terminal(job)) {
      jobs_.Move(job, JobMove::kRequeue, "not re-adopted after a daemon restart; requeued", now_ms);
      ++counters_.jobs_requeued;
    }
    Record(batch, job, absl::StrFormat("lease %d not reported by its node after the restart", epoch), now_ms);
  }
  awaiting_adoption_ = waiting;
}

void DaemonState::PressEndingLeases(Batch& batch, int64_t now_ms) {
  const int64_t grace_ms = config_.lease_grace_ms();
  std::vector<std::pair<std::string, LeaseTable::JobEpoch>> never_back;  // (node, lease)
  std::vector<LeaseTable::JobEpoch> overdue_stops;
  for (const auto& [id, of_job] : leases_.all_ending()) {
    for (const auto& [epoch, e] : of_job) {
      if (e.unadopted_until_ms > 0 && now_ms > e.unadopted_until_ms) {
        for (const v1::LeaseSlice& s : e.lease.slices()) {
          if (!nodes_.count(s.node()) && !e.exited.count(s.node())) never_back.push_back({s.node(), {id, epoch}});
        }
      }
      if (!e.stop_sent && now_ms - e.since_ms >= grace_ms) overdue_stops.emplace_back(id, epoch);
    }
  }
  for (const auto& [id, epoch] : overdue_stops) {
    EndingLease* e = leases_.EditEnding(id, epoch);
    for (const v1::LeaseSlice& s : e->lease.slices()) SendStop(s.node(), id, epoch, grace_ms);
    e->stop_sent = true;
    spdlog::info("{} lease {}: no exit {} s after lease end; stopping", id, epoch, config_.lease_grace_s);
  }
  LowerOverdueMemoryLimits(batch, now_ms);
  for (const auto& [node, lease] : never_back) {
    v1::ProcessExit e;
    e.set_job_id(lease.first);
    e.set_epoch(lease.second);
    e.set_exit_code(-1);
    e.set_stopped_by_node(true);
    e.set_reason(absl::StrFormat("node %s did not register again after the daemon restart", node));
    HandleExit(node, e, batch, now_ms);
  }
}

absl::Status DaemonState::Tick(int64_t now_ms, bool flush_progress) {
  FoldProgress();
  Change change(*this);
  Batch batch;
  const std::vector<std::string> silent = nodes_.Silent(now_ms, config_.heartbeat_timeout_ms());
  for (const std::string& name : silent) LoseNode(nodes_.Edit(name), batch, now_ms);
  // After a restart: leases their nodes did not report in time are over.
  if (awaiting_adoption_) RequeueUnadopted(batch, now_ms);
  PressEndingLeases(batch, now_ms);
  RetireEndedJobs(batch, now_ms);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  // Said once stored: a loss the store refused did not happen (and is
  // tried again every tick while the store refuses).
  for (const std::string& name : silent) {
    spdlog::warn("node {} lost: no heartbeat for {:.0f} s", name, config_.heartbeat_timeout_s);
  }
  // Agents' progress is advice that repeats every second: stored every
  // kProgressFlushMs (and with every change of the job), not every tick,
  // where writing every running job held the lock for most of each tick
  // at 10,000 agents.
  if (flush_progress && ProgressFlushDue(now_ms)) return FlushProgress(now_ms);
  return absl::OkStatus();
}
}  // namespace synergy::daemon
