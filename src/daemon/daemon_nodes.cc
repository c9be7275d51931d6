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
namespace {

// Whether `lease` has a rank on `node`.
bool LeaseOnNode(const v1::Lease& lease, const std::string& node) {
  for (const v1::LeaseSlice& s : lease.slices()) {
    if (s.node() == node) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<int64_t> DaemonState::RegisterNode(const v1::RegisterNodeRequest& request, int64_t now_ms,
                                                   bool joins) {
  Change change(*this);
  bool known = false;
  NodeRecord& n = nodes_.Register(request, now_ms, known);
  leases_.ReleaseAll(request.name());
  Batch batch;
  if (joins) batch.joined_nodes[request.name()] = now_ms;
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
        LeaseTable::Launch& launch = leases_.EditLaunch(p.job_id());
        if (launch.launched_on.empty()) launch.service_from_ms = now_ms;
        launch.launched_on.insert(request.name());
        launch.adopt_deadline_ms = 0;
        leases_.Hold(request.name(), {p.job_id(), p.epoch()},
                     {std::vector<int>(s.gpu_ids().begin(), s.gpu_ids().end()),
                      std::vector<int>(s.cpu_ids().begin(), s.cpu_ids().end())});
        Record(batch, job, absl::StrFormat("lease %d re-adopted on %s", p.epoch(), request.name()), now_ms);
        adopted = true;
      }
    }
    if (!adopted) {
      n.unknown_processes = true;
      SendStop(request.name(), p.job_id(), p.epoch(), static_cast<int64_t>(config_.lease_grace_s * 1000));
      ++not_current;
    }
  }
  // One line per registration, however many processes it lists.
  if (not_current > 0) {
    spdlog::warn("node {}: {} process(es) of leases that are not current: stopping them", request.name(), not_current);
  }
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  if (joins) {
    nodes_.NoteJoined(request.name(), now_ms);
    spdlog::info("node {} joined with a join credential; it holds its own credential from now on", request.name());
  }
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
  return config_.heartbeat_interval_ms;
}

absl::StatusOr<v1::HeartbeatResponse> DaemonState::Heartbeat(const v1::HeartbeatRequest& request,
                                                             int64_t now_ms) {
  v1::HeartbeatResponse response;
  auto it = nodes_.find(request.name());
  if (it == nodes_.end() || !it->second.info.alive()) {
    response.set_reregister(true);
    return response;
  }
  FoldProgress();
  Change change(*this);
  NodeRecord& n = nodes_.Edit(request.name());
  n.info.set_last_heartbeat_unix_ms(now_ms);
  Batch batch;
  for (const v1::ProcessExit& e : request.exits()) {
    // A node speaks only for its own processes: an exit of a lease that
    // never had a rank here (another node's job) is not believed.
    if (!leases_.Holds(request.name(), {e.job_id(), e.epoch()}) && !NodeHoldsLease(n, e.job_id(), e.epoch())) {
      spdlog::warn("node {}: exit reported for {} lease {}, which has no rank on it: ignored", request.name(),
                   e.job_id(), e.epoch());
      continue;
    }
    HandleExit(request.name(), e, batch, now_ms);
  }
  n.processes.clear();
  bool unknown = false;
  for (const v1::RunningProcess& p : request.running()) {
    n.processes.insert({p.job_id(), p.epoch()});
    if (!leases_.Holds(request.name(), {p.job_id(), p.epoch()})) {
      // A process this node holds no lease for (one that showed up late, as
      // a Slurm job whose submission was given up on can): stopped, as at
      // registration, so that it neither runs beside its successor nor
      // keeps the node's launches waiting.
      unknown = true;
      SendStop(request.name(), p.job_id(), p.epoch(), static_cast<int64_t>(config_.lease_grace_s * 1000));
    }
  }
  n.unknown_processes = unknown;
  // Ids of processes that are gone (exit lost with a node restart) are free.
  std::vector<LeaseTable::JobEpoch> released;
  for (const auto& [lease, ids] : leases_.HeldOn(request.name())) {
    if (!n.processes.count(lease) && !leases_.LaunchOf(lease.first).launched_on.count(request.name())) {
      released.push_back(lease);
    }
  }
  for (const LeaseTable::JobEpoch& lease : released) leases_.Release(request.name(), lease);
  // An ended lease whose process this node no longer has (and never
  // reported leaving) is over here.
  std::vector<LeaseTable::JobEpoch> gone;
  for (const auto& [id, epoch] : leases_.EndingOn(request.name())) {
    const EndingLease* e = leases_.FindEnding(id, epoch);
    if (!e->exited.count(request.name()) && !n.processes.count({id, epoch}) &&
        !leases_.Holds(request.name(), {id, epoch})) {
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
    HandleExit(request.name(), e, batch, now_ms);
  }
  if (request.leaving()) Leave(n, batch, now_ms);
  for (v1::StopOrder& s : leases_.TakeStops(request.name())) *response.add_stop() = std::move(s);
  // Before launches: a shrink frees CPU ids a launch may be waiting for.
  if (!request.leaving()) {
    for (v1::ResizeOrder& r : ResizesFor(request, now_ms)) *response.add_resize() = std::move(r);
  }
  for (v1::LaunchOrder& l : LaunchesFor(n, batch, now_ms)) *response.add_launch() = std::move(l);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  return response;
}

std::vector<v1::LaunchOrder> DaemonState::LaunchesFor(NodeRecord& n, Batch& batch, int64_t now_ms) {
  std::vector<v1::LaunchOrder> out;
  if (n.unknown_processes) return out;  // their ids are unknown: wait for them to stop
  if (n.info.leaving() || !n.info.alive()) return out;
  std::set<int> busy_gpus, busy_cpus;
  for (const auto& [lease, ids] : leases_.HeldOn(n.info.name())) {
    busy_gpus.insert(ids.gpus.begin(), ids.gpus.end());
    busy_cpus.insert(ids.cpus.begin(), ids.cpus.end());
  }
  // The node's current leases (a copy: launching edits the jobs, not the index).
  const std::set<std::string> here = leases_.CurrentOn(n.info.name());
  for (const std::string& id : here) {
    const v1::Job& current = jobs_.at(id);
    if (Terminal(current)) continue;
    if (leases_.LaunchOf(id).launched_on.count(n.info.name())) continue;
    // Launched before synergyd restarted: adopted when its node reports the
    // process, else requeued under a new lease at the deadline. Never
    // launched again under the same lease: its first process may have run
    // (and ended unseen, as a Slurm job purged while synergyd was down).
    if (leases_.LaunchOf(id).adopt_deadline_ms > 0) continue;
    if (leases_.AnyEnding(id)) continue;  // its previous lease's processes still run
    v1::Job& job = jobs_.Edit(id);
    LeaseTable::Launch& launch = leases_.EditLaunch(id);
    const v1::Lease& lease = job.lease();
    for (const v1::LeaseSlice& s : lease.slices()) {
      if (s.node() != n.info.name()) continue;
      bool free = true;
      for (int g : s.gpu_ids()) free = free && !busy_gpus.count(g);
      for (int c : s.cpu_ids()) free = free && !busy_cpus.count(c);
      if (!free) continue;  // an ending lease still holds them
      v1::LaunchOrder order;
      order.set_job_id(id);
      order.set_epoch(lease.epoch());
      *order.mutable_command() = job.spec().command();
      *order.mutable_env() = job.spec().env();
      auto& env = *order.mutable_env();
      env["SYNERGY_SCHEDULER"] = config_.listen;
      env["SYNERGY_JOB_ID"] = id;
      env["SYNERGY_AGENT_TOKEN"] = authenticator_->LeaseCredential(id, lease.epoch());
      env["SYNERGY_LEASE_EPOCH"] = std::to_string(lease.epoch());
      env["SYNERGY_GPUS"] = std::to_string(s.gpu_ids_size());
      env["SYNERGY_CPUS"] = std::to_string(s.cpu_ids_size());
      env["SYNERGY_MEM_GB"] = absl::StrFormat("%.3f", s.mem_gb());
      env["SYNERGY_ITERATIONS"] = std::to_string(job.spec().iterations());
      env["SYNERGY_RESUME_ITERATION"] = std::to_string(job.checkpoint_iteration());
      env["SYNERGY_CHECKPOINT"] = job.checkpoint_path();
      env["SYNERGY_RANK"] = std::to_string(s.rank());
      env["SYNERGY_PROFILING"] = lease.profiling() ? "1" : "0";
      env["SYNERGY_WORLD_SIZE"] = std::to_string(lease.slices_size());
      const v1::LeaseSlice& master = lease.slices(0);
      auto m = nodes_.find(master.node());
      env["SYNERGY_MASTER_ADDR"] = m != nodes_.end() ? m->second.info.address() : "127.0.0.1";
      env["SYNERGY_MASTER_PORT"] = std::to_string(29500 + (lease.epoch() % 1000));
      *order.mutable_gpu_ids() = s.gpu_ids();
      *order.mutable_cpu_ids() = s.cpu_ids();
      order.set_mem_gb(s.mem_gb());
      order.set_user(job.owner());
      if (launch.launched_on.empty()) {
        if (job.attempts() == 0) {
          job.set_first_launch_unix_ms(now_ms);
          counters_.queue_wait_s.Observe((now_ms - job.submitted_unix_ms()) / 1000.0);
        }
        job.set_attempts(job.attempts() + 1);
        launch.service_from_ms = now_ms;
      }
      launch.launched_on.insert(n.info.name());
      leases_.Hold(n.info.name(), {id, lease.epoch()},
                   {std::vector<int>(s.gpu_ids().begin(), s.gpu_ids().end()),
                    std::vector<int>(s.cpu_ids().begin(), s.cpu_ids().end())});
      busy_gpus.insert(s.gpu_ids().begin(), s.gpu_ids().end());
      busy_cpus.insert(s.cpu_ids().begin(), s.cpu_ids().end());
      if (!lease.profiling()) {
        jobs_.Move(job, JobMove::kLaunch, absl::StrFormat("running under lease %d", lease.epoch()), now_ms);
      }
      Record(batch, job, absl::StrFormat("lease %d launched on %s (attempt %d)", lease.epoch(),
                                         n.info.name(), job.attempts()),
             now_ms);
      out.push_back(std::move(order));
    }
  }
  return out;
}

bool DaemonState::NodeHoldsLease(const NodeRecord& node, const std::string& job_id, int64_t epoch) const {
  auto job = jobs_.find(job_id);
  if (job != jobs_.end() && job->second.has_lease() && job->second.lease().epoch() == epoch &&
      LeaseOnNode(job->second.lease(), node.info.name())) {
    return true;
  }
  const EndingLease* ending = leases_.FindEnding(job_id, epoch);
  return ending != nullptr && LeaseOnNode(ending->lease, node.info.name());
}

void DaemonState::HandleExit(const std::string& node, const v1::ProcessExit& e, Batch& batch,
                             int64_t now_ms) {
  if (nodes_.count(node)) {
    nodes_.Edit(node).processes.erase({e.job_id(), e.epoch()});
    leases_.Release(node, {e.job_id(), e.epoch()});
  }
  if (!jobs_.count(e.job_id())) return;
  v1::Job& job = jobs_.Edit(e.job_id());
  JobRuntime& rt = jobs_.EditRuntime(job.id());
  const std::string how = e.reason().empty() ? absl::StrCat("exit ", e.exit_code()) : e.reason();
  if (EndingLease* end = leases_.EditEnding(e.job_id(), e.epoch()); end != nullptr) {
    // An ended lease's process is gone: its resources are free now; the
    // lease is over when every rank is.
    end->exited.insert(node);
    for (const v1::LeaseSlice& s : end->lease.slices()) {
      if (!end->exited.count(s.node())) return;
    }
    leases_.FinishEnding(e.job_id(), e.epoch());
    if (!job.has_lease() && !Terminal(job)) {
      if (e.exit_code() == 0 && rt.finished) {
        jobs_.Move(job, JobMove::kSucceed, "finished its iterations", now_ms);
      } else if (job.state() == v1::JOB_STATE_RUNNING || job.state() == v1::JOB_STATE_PROFILING) {
        jobs_.Move(job, JobMove::kSuspend,
                 job.spec().uses_agent() ? absl::StrFormat("checkpointed at iteration %d", job.checkpoint_iteration())
                                         : "stopped at lease end",
                 now_ms);
      }
    }
    Record(batch, job, absl::StrFormat("lease %d ended on %s: %s", e.epoch(), node, how), now_ms);
    return;
  }
  if (!job.has_lease() || job.lease().epoch() != e.epoch()) return;  // stale: ignore
  LeaseTable::Launch& launch = leases_.EditLaunch(job.id());
  launch.exited_on.insert(node);
  const bool crashed = e.exit_code() != 0 && !e.stopped_by_node();
  if (crashed) {
    const int retries = MaxRetries(job);
    // Other ranks of the job are stopped; the lease is ending until they exit.
    bool others = false;
    for (const v1::LeaseSlice& s : job.lease().slices()) {
      if (launch.exited_on.count(s.node())) continue;
      SendStop(s.node(), job.id(), job.lease().epoch(), static_cast<int64_t>(config_.lease_grace_s * 1000));
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
      jobs_.Move(job, JobMove::kFail,
               absl::StrFormat("crashed %d times; last on %s: %s", job.crashes(), node, how), now_ms);
    }
    Record(batch, job, job.reason(), now_ms);
    return;
  }
  // Every slice must exit before the job is done.
  for (const v1::LeaseSlice& s : job.lease().slices()) {
    if (!launch.exited_on.count(s.node())) {
      Record(batch, job, absl::StrFormat("rank on %s exited: %s", node, how), now_ms);
      return;
    }
  }
  const int64_t epoch = job.lease().epoch();
  DropLease(job, LeaseEndCause::kExited, now_ms);
  if (!Terminal(job)) {
    if (e.stopped_by_node()) {
      jobs_.Move(job, JobMove::kSuspend, "stopped by the node", now_ms);
    } else {
      jobs_.Move(job, JobMove::kSucceed,
               rt.finished || !job.spec().uses_agent() ? "exited with status 0"
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
  spdlog::warn("node {} lost: no heartbeat for {:.0f} s", node.info.name(), config_.heartbeat_timeout_s);
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
      if (s.node() != node.info.name()) SendStop(s.node(), id, epoch, static_cast<int64_t>(config_.lease_grace_s * 1000));
    }
    DropLease(job, LeaseEndCause::kNodeLost, now_ms);
    if (!Terminal(job)) {
      jobs_.Move(job, JobMove::kRequeue, absl::StrFormat("node %s lost; requeued", node.info.name()), now_ms);
      ++counters_.jobs_requeued;
    }
    Record(batch, job, absl::StrFormat("lease %d lost with node %s", epoch, node.info.name()), now_ms);
  }
}

absl::Status DaemonState::Tick(int64_t now_ms, bool flush_progress) {
  FoldProgress();
  Change change(*this);
  Batch batch;
  const int64_t timeout_ms = static_cast<int64_t>(config_.heartbeat_timeout_s * 1000);
  for (const std::string& name : nodes_.Silent(now_ms, timeout_ms)) LoseNode(nodes_.Edit(name), batch, now_ms);
  // After a restart: leases their nodes did not report in time are over.
  if (awaiting_adoption_) {
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
  // Ending leases: stop orders after the grace period, and ranks on nodes
  // that never came back after a restart.
  const int64_t grace_ms = static_cast<int64_t>(config_.lease_grace_s * 1000);
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
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  // Agents' progress is advice that repeats every second: stored every
  // kProgressFlushMs (and with every change of the job), not every tick,
  // where writing every running job held the lock for most of each tick
  // at 10,000 agents.
  if (flush_progress && ProgressFlushDue(now_ms)) return FlushProgress(now_ms);
  return absl::OkStatus();
}

}  // namespace synergy::daemon
