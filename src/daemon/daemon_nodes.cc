// DaemonState, the node side: registration, heartbeats (reports in, launch
// and stop orders out), process exits and what they mean for a job, lost
// nodes, and the housekeeping between rounds.
#include "daemon/daemon_state.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "service/names.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {
absl::StatusOr<int64_t> DaemonState::RegisterNode(const v1::RegisterNodeRequest& request, int64_t now_ms,
                                                   bool joins) {
  if (auto it = nodes_.find(request.name());
      it != nodes_.end() && it->second.info.alive() &&
      NodeTable::Stale(it->second, request.incarnation(), request.sequence())) {
    // The node gave up on this call and has registered since: what it says
    // is older than what synergyd knows.
    spdlog::info("node {}: registration {} arrived after call {}: stale, ignored", request.name(), request.sequence(),
                 it->second.sequence);
    return config_.heartbeat_interval_ms;
  }
  Change change(*this);
  bool known = false;
  NodeRecord& n = nodes_.Register(request, now_ms, known);
  leases_.ReleaseAll(request.name());
  Batch batch;
  if (joins) batch.joined_nodes[request.name()] = now_ms;
  const int not_current = AdoptReported(request, n, batch, now_ms);
  // One line per registration, however many processes it lists.
  if (not_current > 0) {
    spdlog::warn("node {}: {} process(es) of leases that are not current: stopping them", request.name(), not_current);
  }
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  if (joins) {
    nodes_.NoteJoined(request.name(), now_ms);
    spdlog::info("node {} joined with a join credential; it holds its own credential from now on", request.name());
  }
  SayRegistered(request, known);
  return config_.heartbeat_interval_ms;
}

int DaemonState::AdoptReported(const v1::RegisterNodeRequest& request, NodeRecord& n, Batch& batch, int64_t now_ms) {
  int not_current = 0;
  for (const v1::RunningProcess& p : request.running()) {
    n.processes.insert({p.job_id(), p.epoch()});
    auto it = jobs_.find(p.job_id());
    bool adopted = false;
    // A finished or cancelled job's process is adopted too, so that its ids
    // stay held until it exits.
    if (it != jobs_.end() && it->second.has_lease() && it->second.lease().epoch() == p.epoch()) {
      v1::Job& job = jobs_.Edit(p.job_id());
      for (const v1::LeaseSlice& s : job.lease().slices()) {
        if (s.node() != request.name()) continue;
        leases_.Hold(request.name(), {p.job_id(), p.epoch()},
                     {std::vector<int>(s.gpu_ids().begin(), s.gpu_ids().end()),
                      std::vector<int>(s.cpu_ids().begin(), s.cpu_ids().end())});
        adopted = true;
        LeaseTable::Launch& launch = leases_.EditLaunch(p.job_id());
        if (p.queued() && launch.launched_on.empty()) {
          // Taken by the node's executor, not started (queued in Slurm):
          // confirmed by the report that shows it running.
          launch.ordered_on.emplace(request.name(), 1);
          launch.adopt_deadline_ms = 0;
          n.queued.insert({p.job_id(), p.epoch()});
          continue;
        }
        if (launch.ordered_on.count(request.name())) {
          // Ordered before the node registered again: this is its report.
          ConfirmLaunch(job, request.name(), batch, now_ms);
          continue;
        }
        if (launch.launched_on.empty()) launch.service_from_ms = now_ms;
        launch.launched_on.insert(request.name());
        launch.adopt_deadline_ms = 0;
        Record(batch, job, absl::StrFormat("lease %d re-adopted on %s", p.epoch(), request.name()), now_ms);
      }
    }
    if (!adopted) {
      n.unknown_processes = true;
      SendStop(request.name(), p.job_id(), p.epoch(), config_.lease_grace_ms());
      ++not_current;
    }
  }
  return not_current;
}

void DaemonState::SayRegistered(const v1::RegisterNodeRequest& request, bool known) const {
  spdlog::info("node {} {}: {} GPUs{}{}, {} CPUs, {:.1f} GB, cgroups: {}", request.name(),
               known ? "re-registered" : "registered", request.resources().gpu_ids_size(),
               request.resources().gpu_type().empty() ? "" : " " + request.resources().gpu_type(),
               request.resources().gpus_declared() ? " (declared)" : "",
               request.resources().cpu_ids_size(), request.resources().mem_gb(), request.cgroups());
  // Rounds run every model at speed 1 on a type the zoo has no speed for
  // (daemon/typed_views.h): said, so that the operator adds the speeds.
  const std::string& type = request.resources().gpu_type();
  std::vector<std::string> unknown;
  for (int m = 0; m < static_cast<int>(zoo_.models().size()); ++m) {
    if (!type.empty() && !zoo_.GpuSpeed(m, type)) unknown.push_back(zoo_.model(m).name);
  }
  if (!unknown.empty()) {
    spdlog::warn("node {}: the model zoo has no gpu_speed for GPU type {} ({} of {} models: {}); rounds take "
                 "those models to run there as on the type they were profiled on",
                 request.name(), type, unknown.size(), zoo_.models().size(), absl::StrJoin(unknown, ", "));
  }
}

absl::StatusOr<v1::HeartbeatResponse> DaemonState::Heartbeat(const v1::HeartbeatRequest& request,
                                                             int64_t now_ms) {
  v1::HeartbeatResponse response;
  auto it = nodes_.find(request.name());
  if (it == nodes_.end() || !it->second.info.alive()) {
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
  FoldProgress();
  Change change(*this);
  NodeRecord& n = nodes_.Edit(request.name());
  n.info.set_last_heartbeat_unix_ms(now_ms);
  if (request.sequence() != 0) n.sequence = request.sequence();
  *n.info.mutable_foreign() = request.foreign();
  Batch batch;
  ApplyReport(n, request, batch, now_ms);
  if (request.leaving()) Leave(n, batch, now_ms);
  for (v1::StopOrder& s : leases_.StopsFor(request.name(), n.processes)) *response.add_stop() = std::move(s);
  // Before launches: a shrink frees CPU ids a launch may be waiting for.
  if (!request.leaving()) {
    for (v1::ResizeOrder& r : ResizesFor(request, now_ms)) *response.add_resize() = std::move(r);
  }
  for (v1::LaunchOrder& l : LaunchesFor(n, batch, now_ms)) *response.add_launch() = std::move(l);
  const absl::Status stored = change.Commit(std::move(batch));
  nodes_.NoteHeard(request.name(), now_ms);
  if (!stored.ok()) return stored;
  return response;
}

void DaemonState::ApplyReport(NodeRecord& n, const v1::HeartbeatRequest& request, Batch& batch, int64_t now_ms) {
  ApplyReportedExits(n, request, batch, now_ms);
  n.unknown_processes = ApplyReportedProcesses(n, request, batch, now_ms);
  EndVanished(n, request.name(), batch, now_ms);
}

void DaemonState::ApplyReportedExits(NodeRecord& n, const v1::HeartbeatRequest& request, Batch& batch,
                                     int64_t now_ms) {
  const std::string& node = request.name();
  for (const v1::ProcessExit& e : request.exits()) {
    // A node speaks only for its own processes: an exit of a lease that
    // never had a rank here (another node's job) is not believed.
    if (!leases_.Holds(node, {e.job_id(), e.epoch()}) && !NodeHoldsLease(n, e.job_id(), e.epoch())) {
      if (jobs_.count(e.job_id()) && e.epoch() < leases_.next_epoch()) {
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
        leases_.LaunchOf(e.job_id()).ordered_on.count(node)) {
      ConfirmLaunch(jobs_.Edit(e.job_id()), node, batch, now_ms);  // it ran before the report could show it
    }
    HandleExit(node, e, batch, now_ms);
  }
}

bool DaemonState::ApplyReportedProcesses(NodeRecord& n, const v1::HeartbeatRequest& request, Batch& batch,
                                         int64_t now_ms) {
  const std::string& node = request.name();
  n.processes.clear();
  n.queued.clear();
  bool unknown = false;
  for (const v1::RunningProcess& p : request.running()) {
    n.processes.insert({p.job_id(), p.epoch()});
    if (p.queued()) n.queued.insert({p.job_id(), p.epoch()});
    if (!leases_.Holds(node, {p.job_id(), p.epoch()})) {
      // A process this node holds no lease for (one that showed up late, as
      // a Slurm job whose submission was given up on can): stopped, as at
      // registration, so that it neither runs beside its successor nor
      // keeps the node's launches waiting.
      unknown = true;
      SendStop(node, p.job_id(), p.epoch(), config_.lease_grace_ms());
      continue;
    }
    if (CurrentLeaseOf(p.job_id(), p.epoch()) == nullptr || !leases_.LaunchOf(p.job_id()).ordered_on.count(node)) {
      continue;
    }
    if (!p.queued()) {
      ConfirmLaunch(jobs_.Edit(p.job_id()), node, batch, now_ms);
    } else if (!leases_.LaunchOf(p.job_id()).queued_on.count(node)) {
      // Not running yet: the job shows where it waits, once.
      leases_.EditLaunch(p.job_id()).queued_on.insert(node);
      v1::Job& job = jobs_.Edit(p.job_id());
      job.set_reason(absl::StrFormat("lease %d waits in %s's queue: not started yet", p.epoch(), node));
      Record(batch, job, absl::StrFormat("lease %d queued on %s (not started yet)", p.epoch(), node), now_ms);
    }
  }
  return unknown;
}

void DaemonState::EndVanished(NodeRecord& n, const std::string& node, Batch& batch, int64_t now_ms) {
  // Ids of processes that are gone are free, unless their lease is current
  // here: ordered (the order goes again) or launched (gone, below).
  std::vector<LeaseTable::JobEpoch> released;
  for (const auto& [lease, ids] : leases_.HeldOn(node)) {
    if (n.processes.count(lease)) continue;
    const LeaseTable::Launch& launch = leases_.LaunchOf(lease.first);
    const bool current = CurrentLeaseOf(lease.first, lease.second) != nullptr;
    if (!current || (!launch.ordered_on.count(node) && !launch.launched_on.count(node))) released.push_back(lease);
  }
  for (const LeaseTable::JobEpoch& lease : released) leases_.Release(node, lease);
  // A lease's process this node no longer reports, and whose exit it never
  // reported, is gone (a node restarted without it): ending leases are over
  // here, current ones have stopped.
  std::vector<LeaseTable::JobEpoch> gone;
  for (const auto& [id, epoch] : leases_.EndingOn(node)) {
    const EndingLease* e = leases_.FindEnding(id, epoch);
    if (!e->exited.count(node) && !n.processes.count({id, epoch}) && !leases_.Holds(node, {id, epoch})) {
      gone.emplace_back(id, epoch);
    }
  }
  for (const std::string& id : leases_.CurrentOn(node)) {
    const int64_t epoch = jobs_.at(id).lease().epoch();
    const LeaseTable::Launch& launch = leases_.LaunchOf(id);
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

const v1::Job* DaemonState::CurrentLeaseOf(const std::string& job_id, int64_t epoch) const {
  auto job = jobs_.find(job_id);
  if (job == jobs_.end() || !job->second.has_lease() || job->second.lease().epoch() != epoch) return nullptr;
  return &job->second;
}

bool DaemonState::NodeHoldsLease(const NodeRecord& node, const std::string& job_id, int64_t epoch) const {
  auto job = jobs_.find(job_id);
  if (job != jobs_.end() && job->second.has_lease() && job->second.lease().epoch() == epoch &&
      SliceOn(job->second.lease(), node.info.name()) != nullptr) {
    return true;
  }
  const EndingLease* ending = leases_.FindEnding(job_id, epoch);
  return ending != nullptr && SliceOn(ending->lease, node.info.name()) != nullptr;
}

void DaemonState::HandleExit(const std::string& node, const v1::ProcessExit& e, Batch& batch,
                             int64_t now_ms) {
  if (nodes_.count(node)) {
    nodes_.Edit(node).processes.erase({e.job_id(), e.epoch()});
    leases_.Release(node, {e.job_id(), e.epoch()});
  }
  if (!jobs_.count(e.job_id())) return;
  v1::Job& job = jobs_.Edit(e.job_id());
  const std::string how = e.reason().empty() ? absl::StrCat("exit ", e.exit_code()) : e.reason();
  if (EndingLease* end = leases_.EditEnding(e.job_id(), e.epoch()); end != nullptr) {
    ExitOfEndingLease(*end, job, node, e, how, batch, now_ms);
    return;
  }
  if (!job.has_lease() || job.lease().epoch() != e.epoch()) return;  // stale: ignore
  LeaseTable::Launch& launch = leases_.EditLaunch(job.id());
  launch.exited_on.insert(node);
  if (e.exit_code() != 0 && !e.stopped_by_node()) {
    CrashOfCurrentLease(job, launch, node, e, how, batch, now_ms);
  } else {
    EndOfCurrentLease(job, launch, node, e, how, batch, now_ms);
  }
}

void DaemonState::ExitOfEndingLease(EndingLease& end, v1::Job& job, const std::string& node, const v1::ProcessExit& e,
                                    const std::string& how, Batch& batch, int64_t now_ms) {
  // An ended lease's process is gone: its resources are free now; the
  // lease is over when every rank is.
  end.exited.insert(node);
  for (const v1::LeaseSlice& s : end.lease.slices()) {
    if (!end.exited.count(s.node())) return;
  }
  leases_.FinishEnding(e.job_id(), e.epoch());
  const JobRuntime& rt = jobs_.EditRuntime(job.id());
  if (!job.has_lease() && !Terminal(job)) {
    if (e.exit_code() == 0 && rt.finished) {
      jobs_.Move(job, JobMove::kSucceed, "finished its iterations", now_ms);
    } else if (e.exit_code() == 0 && !e.stopped_by_node() && !job.spec().uses_agent()) {
      // A plain job that exited 0 on its own before its stop reached it
      // (it finished as the round ended its lease) is done: run again,
      // a job with side effects would do them twice.
      jobs_.Move(job, JobMove::kSucceed, "exited 0 as its lease ended", now_ms);
    } else if (job.state() == v1::JOB_STATE_RUNNING || job.state() == v1::JOB_STATE_PROFILING) {
      jobs_.Move(job, JobMove::kSuspend,
                 job.spec().uses_agent() ? absl::StrFormat("checkpointed at iteration %d", job.checkpoint_iteration())
                                         : "stopped at lease end",
                 now_ms);
    }
  }
  Record(batch, job, absl::StrFormat("lease %d ended on %s: %s", e.epoch(), node, how), now_ms);
}

void DaemonState::CrashOfCurrentLease(v1::Job& job, LeaseTable::Launch& launch, const std::string& node,
                                      const v1::ProcessExit& e, const std::string& how, Batch& batch, int64_t now_ms) {
  const int retries = MaxRetries(job);
  // Other ranks of the job are stopped; the lease is ending until they exit.
  bool others = false;
  for (const v1::LeaseSlice& s : job.lease().slices()) {
    if (launch.exited_on.count(s.node())) continue;
    SendStop(s.node(), job.id(), job.lease().epoch(), config_.lease_grace_ms());
    others = true;
  }
  if (others) {
    EndingLease ending;
    ending.lease = job.lease();
    ending.since_ms = now_ms;
    ending.stop_sent = true;
    ending.exited = launch.exited_on;
    leases_.StartEnding(std::move(ending));
  }
  DropLease(job, Terminal(job) ? LeaseEndCause::kExited : LeaseEndCause::kCrashed, now_ms);
  if (Terminal(job)) {
    Record(batch, job, absl::StrFormat("exited on %s: %s", node, how), now_ms);
    return;
  }
  // Crashes, not launches: a job preempted or moved many times has not
  // used up its retries.
  job.set_crashes(job.crashes() + 1);
  if (e.launch_refused()) {
    jobs_.Move(job, JobMove::kFail, absl::StrFormat("node %s refused to run it: %s", node, how), now_ms);
  } else if (job.crashes() <= retries) {
    jobs_.Move(job, JobMove::kRequeue,
               absl::StrFormat("crashed on %s (%s); retry %d of %d", node, how, job.crashes(), retries), now_ms);
    ++counters_.jobs_requeued;
  } else {
    jobs_.Move(job, JobMove::kFail, absl::StrFormat("crashed %d times; last on %s: %s", job.crashes(), node, how),
               now_ms);
  }
  Record(batch, job, job.reason(), now_ms);
}

void DaemonState::EndOfCurrentLease(v1::Job& job, LeaseTable::Launch& launch, const std::string& node,
                                    const v1::ProcessExit& e, const std::string& how, Batch& batch, int64_t now_ms) {
  // Every slice must exit before the job is done.
  for (const v1::LeaseSlice& s : job.lease().slices()) {
    if (!launch.exited_on.count(s.node())) {
      Record(batch, job, absl::StrFormat("rank on %s exited: %s", node, how), now_ms);
      return;
    }
  }
  const bool finished = jobs_.EditRuntime(job.id()).finished;
  const int64_t epoch = job.lease().epoch();
  DropLease(job, LeaseEndCause::kExited, now_ms);
  if (!Terminal(job)) {
    if (e.stopped_by_node()) {
      jobs_.Move(job, JobMove::kSuspend, "stopped by the node", now_ms);
    } else {
      jobs_.Move(job, JobMove::kSucceed,
                 finished || !job.spec().uses_agent() ? "exited with status 0"
                                                      : "exited with status 0 before its last iteration",
                 now_ms);
    }
  }
  Record(batch, job, absl::StrFormat("lease %d: process on %s %s; job %s", epoch, node, how,
                                     service::JobStateName(job.state())),
         now_ms);
}

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
