// NodeGateway, nodes that go: a node leaving (shutting down), a node lost
// (silent past heartbeat_timeout_s), and the tick between rounds that
// finds them, requeues leases not re-adopted after a restart and presses
// ending leases past their grace.
#include "daemon/nodes/node_gateway.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "daemon/round/lease_actions.h"
#include "service/names.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

void NodeGateway::Leave(NodeRecord& node, Batch& batch, int64_t now_ms) {
  const std::string& name = node.info.name();
  if (!node.info.leaving()) {
    node.info.set_leaving(true);
    spdlog::info("node {} is leaving: its leases end now and its jobs are requeued", name);
    const std::set<std::string> on_node = state_.leases_.CurrentOn(name);  // a copy: EndLease changes it
    for (const std::string& id : on_node) {
      if (!state_.Terminal(state_.jobs_.at(id))) state_.actions().EndLease(state_.jobs_.Edit(id), absl::StrCat("node ", name, " is leaving"), LeaseEndCause::kNodeLeaving, batch,
                                          now_ms);
    }
  }
  // Gone once nothing of it runs: its ids are free and it is not planned on.
  if (node.processes.empty() && state_.leases_.HeldOn(name).empty()) {
    node.info.set_alive(false);
    state_.leases_.DropStops(name);
    spdlog::info("node {} left", name);
  }
}

void NodeGateway::LoseNode(NodeRecord& node, Batch& batch, int64_t now_ms) {
  node.info.set_alive(false);
  state_.leases_.ReleaseAll(node.info.name());
  node.processes.clear();
  state_.leases_.DropStops(node.info.name());
  // Its ranks of ending leases will never report: those leases are over.
  const std::set<LeaseTable::JobEpoch> ending = state_.leases_.EndingOn(node.info.name());
  for (const auto& [id, epoch] : ending) {
    state_.leases_.FinishEnding(id, epoch);
    // Its last lease is over (as HandleExit would say once every rank had
    // exited): it waits for the next.
    const v1::Job& job = state_.jobs_.at(id);
    if (!job.has_lease() && !state_.leases_.AnyEnding(id) &&
        (job.state() == v1::JOB_STATE_RUNNING || job.state() == v1::JOB_STATE_PROFILING)) {
      v1::Job& suspended = state_.jobs_.Edit(id);
      state_.jobs_.Move(suspended, JobMove::kSuspend, absl::StrFormat("lease %d lost with node %s", epoch, node.info.name()),
              now_ms);
      state_.Record(batch, suspended, suspended.reason(), now_ms);
    }
  }
  const std::set<std::string> on_node = state_.leases_.CurrentOn(node.info.name());
  for (const std::string& id : on_node) {
    v1::Job& job = state_.jobs_.Edit(id);
    const int64_t epoch = job.lease().epoch();
    for (const v1::LeaseSlice& s : job.lease().slices()) {
      if (s.node() != node.info.name()) state_.actions().SendStop(s.node(), id, epoch, state_.config_.lease_grace_ms());
    }
    state_.actions().DropLease(job, LeaseEndCause::kNodeLost, now_ms);
    if (!state_.Terminal(job)) {
      state_.jobs_.Move(job, JobMove::kRequeue, absl::StrFormat("node %s lost; requeued", node.info.name()), now_ms);
      ++state_.counters_.jobs_requeued;
    }
    state_.Record(batch, job, absl::StrFormat("lease %d lost with node %s", epoch, node.info.name()), now_ms);
  }
}

void NodeGateway::RequeueUnadopted(Batch& batch, int64_t now_ms) {
  bool waiting = false;
  std::vector<std::string> overdue;
  for (const auto& [id, current] : state_.jobs_.all()) {
    const LeaseTable::Launch& launch = state_.leases_.LaunchOf(id);
    if (!current.has_lease() || launch.adopt_deadline_ms <= 0) continue;
    if (now_ms > launch.adopt_deadline_ms) {
      overdue.push_back(id);
    } else {
      waiting = true;
    }
  }
  for (const std::string& id : overdue) {
    v1::Job& job = state_.jobs_.Edit(id);
    const int64_t epoch = job.lease().epoch();
    state_.actions().DropLease(job, LeaseEndCause::kNotReadopted, now_ms);
    if (!state_.Terminal(job)) {
      state_.jobs_.Move(job, JobMove::kRequeue, "not re-adopted after a daemon restart; requeued", now_ms);
      ++state_.counters_.jobs_requeued;
    }
    state_.Record(batch, job, absl::StrFormat("lease %d not reported by its node after the restart", epoch), now_ms);
  }
  state_.awaiting_adoption_ = waiting;
}

void NodeGateway::PressEndingLeases(Batch& batch, int64_t now_ms) {
  const int64_t grace_ms = state_.config_.lease_grace_ms();
  std::vector<std::pair<std::string, LeaseTable::JobEpoch>> never_back;  // (node, lease)
  std::vector<LeaseTable::JobEpoch> overdue_stops;
  for (const auto& [id, of_job] : state_.leases_.all_ending()) {
    for (const auto& [epoch, e] : of_job) {
      if (e.unadopted_until_ms > 0 && now_ms > e.unadopted_until_ms) {
        for (const v1::LeaseSlice& s : e.lease.slices()) {
          if (!state_.nodes_.count(s.node()) && !e.exited.count(s.node())) never_back.push_back({s.node(), {id, epoch}});
        }
      }
      if (!e.stop_sent && now_ms - e.since_ms >= grace_ms) overdue_stops.emplace_back(id, epoch);
    }
  }
  for (const auto& [id, epoch] : overdue_stops) {
    EndingLease* e = state_.leases_.EditEnding(id, epoch);
    for (const v1::LeaseSlice& s : e->lease.slices()) state_.actions().SendStop(s.node(), id, epoch, grace_ms);
    e->stop_sent = true;
    spdlog::info("{} lease {}: no exit {} s after lease end; stopping", id, epoch, state_.config_.lease_grace_s);
  }
  state_.actions().LowerOverdueMemoryLimits(batch, now_ms);
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

absl::Status NodeGateway::Tick(int64_t now_ms, bool flush_progress) {
  state_.FoldProgress();
  DaemonState::Change change(state_);
  Batch batch;
  const std::vector<std::string> silent = state_.nodes_.Silent(now_ms, state_.config_.heartbeat_timeout_ms());
  for (const std::string& name : silent) LoseNode(state_.nodes_.Edit(name), batch, now_ms);
  // After a restart: leases their nodes did not report in time are over.
  if (state_.awaiting_adoption_) RequeueUnadopted(batch, now_ms);
  PressEndingLeases(batch, now_ms);
  state_.actions().TimeOutJobsPastTheirLimit(batch, now_ms);
  state_.RetireEndedJobs(batch, now_ms);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  // Said once stored: a loss the store refused did not happen (and is
  // tried again every tick while the store refuses).
  for (const std::string& name : silent) {
    spdlog::warn("node {} lost: no heartbeat for {:.0f} s", name, state_.config_.heartbeat_timeout_s);
  }
  // Agents' progress is advice that repeats every second: stored every
  // DaemonState::kProgressFlushMs (and with every change of the job), not every tick,
  // where writing every running job held the lock for most of each tick
  // at 10,000 agents.
  if (flush_progress && state_.ProgressFlushDue(now_ms)) return state_.FlushProgress(now_ms);
  return absl::OkStatus();
}
}  // namespace synergy::daemon
