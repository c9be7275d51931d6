// NodeGateway, a node's heartbeat: its report applied (exits, processes,
// launches confirmed, vanished leases), and its orders (launch, stop,
// resize) in the reply.
#include "daemon/nodes/node_gateway.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "daemon/round/lease_actions.h"
#include "service/names.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

absl::StatusOr<v1::HeartbeatResponse> NodeGateway::Heartbeat(const v1::HeartbeatRequest& request,
                                                             int64_t now_ms) {
  v1::HeartbeatResponse response;
  auto it = state_.nodes_.find(request.name());
  if (it == state_.nodes_.end() || !it->second.info.alive()) {
    response.set_reregister(true);
    return response;
  }
  if (request.incarnation() != 0 && it->second.incarnation != 0 && request.incarnation() != it->second.incarnation) {
    // Not the synergy-node process that registered (one that restarted, or
    // a second one of the same name): it registers, with its processes.
    spdlog::warn("node {}: heartbeat from another synergy-node process than the one registered: asked to register",
                 request.name());
    response.set_reregister(true);
    return response;
  }
  if (NodeTable::Stale(it->second, request.incarnation(), request.sequence())) {
    // The node gave up on this call and a later one overtook it: acting on
    // its report would undo what the later one said.
    spdlog::info("node {}: heartbeat {} arrived after call {}: stale, ignored", request.name(), request.sequence(),
                 it->second.sequence);
    return response;
  }
  state_.FoldProgress();
  DaemonState::Change change(state_);
  NodeRecord& n = state_.nodes_.Edit(request.name());
  n.info.set_last_heartbeat_unix_ms(now_ms);
  if (request.sequence() != 0) n.sequence = request.sequence();
  *n.info.mutable_foreign() = request.foreign();
  Batch batch;
  ApplyReport(n, request, batch, now_ms);
  if (request.leaving()) Leave(n, batch, now_ms);
  for (v1::StopOrder& s : state_.leases_.StopsFor(request.name(), n.processes)) *response.add_stop() = std::move(s);
  // Before launches: a shrink frees CPU ids a launch may be waiting for.
  if (!request.leaving()) {
    for (v1::ResizeOrder& r : state_.actions().ResizesFor(request, now_ms)) *response.add_resize() = std::move(r);
  }
  for (v1::LaunchOrder& l : LaunchesFor(n, batch, now_ms)) *response.add_launch() = std::move(l);
  const absl::Status stored = change.Commit(std::move(batch));
  state_.nodes_.NoteHeard(request.name(), now_ms);
  if (!stored.ok()) return stored;
  return response;
}

void NodeGateway::ApplyReport(NodeRecord& n, const v1::HeartbeatRequest& request, Batch& batch, int64_t now_ms) {
  ApplyReportedExits(n, request, batch, now_ms);
  n.unknown_processes = ApplyReportedProcesses(n, request, batch, now_ms);
  EndVanished(n, request.name(), batch, now_ms);
}

void NodeGateway::ApplyReportedExits(NodeRecord& n, const v1::HeartbeatRequest& request, Batch& batch,
                                     int64_t now_ms) {
  const std::string& node = request.name();
  for (const v1::ProcessExit& e : request.exits()) {
    // A node speaks only for its own processes: an exit of a lease that
    // never had a rank here (another node's job) is not believed.
    if (!state_.leases_.Holds(node, {e.job_id(), e.epoch()}) && !NodeHoldsLease(n, e.job_id(), e.epoch())) {
      if (state_.jobs_.count(e.job_id()) && e.epoch() < state_.leases_.next_epoch()) {
        // Most likely applied already: the node sends an exit again until a
        // reply to a heartbeat that carried it arrives.
        spdlog::debug("node {}: exit of {} lease {} reported again: applied already", node, e.job_id(), e.epoch());
      } else {
        spdlog::warn("node {}: exit reported for {} lease {}, which has no rank on it: ignored", node, e.job_id(),
                     e.epoch());
      }
      continue;
    }
    if (const v1::Job* job = CurrentLeaseOf(e.job_id(), e.epoch()); job != nullptr &&
        state_.leases_.LaunchOf(e.job_id()).ordered_on.count(node)) {
      ConfirmLaunch(state_.jobs_.Edit(e.job_id()), node, batch, now_ms);  // it ran before the report could show it
    }
    HandleExit(node, e, batch, now_ms);
  }
}

bool NodeGateway::ApplyReportedProcesses(NodeRecord& n, const v1::HeartbeatRequest& request, Batch& batch,
                                         int64_t now_ms) {
  const std::string& node = request.name();
  n.processes.clear();
  n.queued.clear();
  bool unknown = false;
  for (const v1::RunningProcess& p : request.running()) {
    n.processes.insert({p.job_id(), p.epoch()});
    if (p.queued()) n.queued.insert({p.job_id(), p.epoch()});
    if (!state_.leases_.Holds(node, {p.job_id(), p.epoch()})) {
      // A process this node holds no lease for (one that showed up late, as
      // a Slurm job whose submission was given up on can): stopped, as at
      // registration, so that it neither runs beside its successor nor
      // keeps the node's launches waiting.
      unknown = true;
      state_.actions().SendStop(node, p.job_id(), p.epoch(), state_.config_.lease_grace_ms());
      continue;
    }
    if (CurrentLeaseOf(p.job_id(), p.epoch()) == nullptr || !state_.leases_.LaunchOf(p.job_id()).ordered_on.count(node)) {
      continue;
    }
    if (!p.queued()) {
      ConfirmLaunch(state_.jobs_.Edit(p.job_id()), node, batch, now_ms);
    } else if (!state_.leases_.LaunchOf(p.job_id()).queued_on.count(node)) {
      // Not running yet: the job shows where it waits, once.
      state_.leases_.EditLaunch(p.job_id()).queued_on.insert(node);
      v1::Job& job = state_.jobs_.Edit(p.job_id());
      job.set_reason(absl::StrFormat("lease %d waits in %s's queue: not started yet", p.epoch(), node));
      state_.Record(batch, job, absl::StrFormat("lease %d queued on %s (not started yet)", p.epoch(), node), now_ms);
    }
  }
  return unknown;
}

void NodeGateway::EndVanished(NodeRecord& n, const std::string& node, Batch& batch, int64_t now_ms) {
  // Ids of processes that are gone are free, unless their lease is current
  // here: ordered (the order goes again) or launched (gone, below).
  std::vector<LeaseTable::JobEpoch> released;
  for (const auto& [lease, ids] : state_.leases_.HeldOn(node)) {
    if (n.processes.count(lease)) continue;
    const LeaseTable::Launch& launch = state_.leases_.LaunchOf(lease.first);
    const bool current = CurrentLeaseOf(lease.first, lease.second) != nullptr;
    if (!current || (!launch.ordered_on.count(node) && !launch.launched_on.count(node))) released.push_back(lease);
  }
  for (const LeaseTable::JobEpoch& lease : released) state_.leases_.Release(node, lease);
  // A lease's process this node no longer reports, and whose exit it never
  // reported, is gone (a node restarted without it): ending leases are over
  // here, current ones have stopped.
  std::vector<LeaseTable::JobEpoch> gone;
  for (const auto& [id, epoch] : state_.leases_.EndingOn(node)) {
    const EndingLease* e = state_.leases_.FindEnding(id, epoch);
    if (!e->exited.count(node) && !n.processes.count({id, epoch}) && !state_.leases_.Holds(node, {id, epoch})) {
      gone.emplace_back(id, epoch);
    }
  }
  for (const std::string& id : state_.leases_.CurrentOn(node)) {
    const int64_t epoch = state_.jobs_.at(id).lease().epoch();
    const LeaseTable::Launch& launch = state_.leases_.LaunchOf(id);
    if (launch.launched_on.count(node) && !launch.exited_on.count(node) && !n.processes.count({id, epoch})) {
      gone.emplace_back(id, epoch);
    }
  }
  for (const auto& [id, epoch] : gone) {
    v1::ProcessExit e;
    e.set_job_id(id);
    e.set_epoch(epoch);
    e.set_exit_code(-1);
    e.set_stopped_by_node(true);
    e.set_reason("gone from the node (no exit reported)");
    HandleExit(node, e, batch, now_ms);
  }
}

const v1::Job* NodeGateway::CurrentLeaseOf(const std::string& job_id, int64_t epoch) const {
  auto job = state_.jobs_.find(job_id);
  if (job == state_.jobs_.end() || !job->second.has_lease() || job->second.lease().epoch() != epoch) return nullptr;
  return &job->second;
}

bool NodeGateway::NodeHoldsLease(const NodeRecord& node, const std::string& job_id, int64_t epoch) const {
  auto job = state_.jobs_.find(job_id);
  if (job != state_.jobs_.end() && job->second.has_lease() && job->second.lease().epoch() == epoch &&
      SliceOn(job->second.lease(), node.info.name()) != nullptr) {
    return true;
  }
  const EndingLease* ending = state_.leases_.FindEnding(job_id, epoch);
  return ending != nullptr && SliceOn(ending->lease, node.info.name()) != nullptr;
}
}  // namespace synergy::daemon
