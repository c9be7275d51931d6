// LeaseActions, leases: granting one from a plan's assignment (ids from
// each node's free ids), ending one (the agent's checkpoint, then stop
// orders after the grace), and dropping it once its processes are gone;
// the service a lease's time held adds to its job.
#include "daemon/round/lease_actions.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/round/round_input.h"
#include "service/durations.h"
#include "service/names.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

v1::NodeResources LeaseActions::FreeIds(const std::string& node) const {
  const v1::Node& info = state_.nodes_.at(node).info;
  return WithoutForeign(IdsLeft(info.capacity(), state_.leases_.GrantedGpus(node), state_.leases_.GrantedCpus(node)), info.foreign(),
                        {}, {});
}

void LeaseActions::Grant(v1::Job& job, const Assignment& a, const std::vector<std::string>& node_names,
                        double service_weight, Batch& batch, int64_t now_ms, bool between_rounds) {
  // Free ids per node: all, less those of current leases (LeaseTable:
  // ending leases' ids are free for the plan; their launch waits for the
  // exit).
  v1::Lease lease;
  lease.set_job_id(job.id());
  lease.set_epoch(state_.leases_.TakeEpoch());
  lease.set_speedup(a.speedup);
  lease.set_at_ideal(a.at_ideal);
  lease.set_granted_unix_ms(now_ms);
  if (service_weight > 0) lease.set_service_weight(service_weight);
  int rank = 0;
  for (const Slice& s : a.slices) {
    const std::string& node = node_names[s.server];
    const v1::NodeResources unheld = FreeIds(node);
    const std::set<int> gpus(unheld.gpu_ids().begin(), unheld.gpu_ids().end());
    const std::set<int> cpus(unheld.cpu_ids().begin(), unheld.cpu_ids().end());
    v1::LeaseSlice* slice = lease.add_slices();
    slice->set_node(node);
    slice->set_rank(rank++);
    const int want_cpus = WholeCpus(s.resources.cpus);
    auto g = gpus.begin();
    for (int i = 0; i < s.resources.gpus && g != gpus.end(); ++i, ++g) slice->add_gpu_ids(*g);
    auto c = cpus.begin();
    for (int i = 0; i < want_cpus && c != cpus.end(); ++i, ++c) slice->add_cpu_ids(*c);
    if (slice->cpu_ids_size() < want_cpus) {
      // The plan counts fractional cores; ids are whole. A share below one
      // core per job leaves later jobs short: said, not hidden.
      spdlog::warn("{}: node {} has {} free CPU ids, the plan gives {:.2f} cores; the job gets {}", job.id(),
                   node, cpus.size(), s.resources.cpus, slice->cpu_ids_size());
    }
    slice->set_mem_gb(s.resources.mem_gb);
    if (slice->gpu_ids_size() != s.resources.gpus) {
      spdlog::error("{}: node {} has no {} free GPU ids; not granted", job.id(), node, s.resources.gpus);
      return;
    }
  }
  state_.jobs_.EditRuntime(job.id()).finished = false;
  *job.mutable_lease() = lease;
  NoteLeaseNodes(job, lease);
  state_.leases_.IndexCurrent(lease);
  ++state_.counters_.leases_granted;
  batch.counters[DaemonState::kNextEpochCounter] = state_.leases_.next_epoch();
  // The reason names this lease, not one that is ending.
  state_.jobs_.Move(job, JobMove::kGrant, absl::StrFormat("lease %d granted", lease.epoch()), now_ms);
  state_.Record(batch, job,
                absl::StrFormat("lease %d granted: %s%s", lease.epoch(), service::DescribeLease(lease),
                                between_rounds ? ", between rounds" : ""),
                now_ms);
}

const char* LeaseEndCauseName(LeaseEndCause cause) {
  switch (cause) {
    case LeaseEndCause::kRound: return "round";
    case LeaseEndCause::kProfiled: return "profiled";
    case LeaseEndCause::kCancelled: return "cancelled";
    case LeaseEndCause::kFinished: return "finished";
    case LeaseEndCause::kExited: return "exited";
    case LeaseEndCause::kCrashed: return "crashed";
    case LeaseEndCause::kNodeLeaving: return "node_leaving";
    case LeaseEndCause::kNodeLost: return "node_lost";
    case LeaseEndCause::kNotReadopted: return "not_readopted";
    case LeaseEndCause::kHeld: return "held";
    case LeaseEndCause::kRequeued: return "requeued";
    case LeaseEndCause::kNotStarted: return "not_started";
    case LeaseEndCause::kTimedOut: return "timed_out";
  }
  return "unknown";
}

void LeaseActions::EndLease(v1::Job& job, const std::string& why, LeaseEndCause cause, Batch& batch,
                           int64_t now_ms) {
  const v1::Lease lease = job.lease();
  const LeaseTable::Launch& launch = state_.leases_.LaunchOf(job.id());
  if (!launch.launched()) {
    // Never launched: nothing to stop, and no output to point `logs` at.
    ForgetLeaseNodes(job, lease.epoch());
    DropLease(job, cause, now_ms);
    if (!state_.Terminal(job)) state_.jobs_.Move(job, JobMove::kRequeue, absl::StrCat("lease ended before launch: ", why), now_ms);
    state_.Record(batch, job, absl::StrFormat("lease %d withdrawn before launch (%s)", lease.epoch(), why), now_ms);
    return;
  }
  EndingLease ending;
  ending.lease = lease;
  ending.since_ms = now_ms;
  ending.lease.set_ending(true);
  // Not yet re-adopted after a restart: its processes may still run, so
  // the job's next launch waits for them like for any ending lease.
  ending.unadopted_until_ms = launch.adopt_deadline_ms;
  // Plain processes are stopped now; agents first get lease_ending and the
  // grace period to checkpoint (Tick sends the stop after it).
  if (!job.spec().uses_agent() || state_.Terminal(job)) {
    for (const v1::LeaseSlice& s : lease.slices()) {
      SendStop(s.node(), job.id(), lease.epoch(), state_.config_.lease_grace_ms());
    }
    ending.stop_sent = true;
  }
  state_.leases_.StartEnding(ending);
  DropLease(job, cause, now_ms);
  if (!state_.Terminal(job)) job.set_reason(absl::StrFormat("lease %d ending: %s", lease.epoch(), why));
  state_.Record(batch, job,
         absl::StrFormat("lease %d ending (%s): %s", lease.epoch(), why,
                         ending.stop_sent ? "stop ordered" : "agent to checkpoint and exit"),
         now_ms);
}

void LeaseActions::WithdrawForFinishedJob(v1::Job& job, Batch& batch, int64_t now_ms) {
  const int64_t epoch = job.lease().epoch();
  state_.Record(batch, job, absl::StrFormat("lease %d withdrawn: the job finished", epoch), now_ms);
  ForgetLeaseNodes(job, epoch);
  DropLease(job, LeaseEndCause::kFinished, now_ms);
}

void LeaseActions::DropLease(v1::Job& job, LeaseEndCause cause, int64_t now_ms) {
  // Every end counts: planned, crashed, finished, lost with a node.
  if (job.has_lease()) ++state_.counters_.leases_ended_by_cause[static_cast<size_t>(cause)];
  // Its ids are the plan's again (a launch onto them waits for the exit).
  if (job.has_lease()) state_.NoteLaunchEvent(now_ms);
  const LeaseTable::Launch& launch = state_.leases_.LaunchOf(job.id());
  if (job.has_lease() && launch.launched()) job.set_last_lease_end_unix_ms(now_ms);
  // The lease's time held joins the stored service, run time and resource
  // use (ServiceNowMs, RunNowMs and AddResourceTime read the job and launch
  // these refer to).
  AddResourceTime(job, launch, now_ms);
  job.set_attained_service_ms(ServiceNowMs(job, launch, now_ms));
  job.set_run_ms(RunNowMs(job, launch, now_ms));
  // Its launch state goes with it.
  if (job.has_lease()) state_.leases_.ForgetCurrent(job.lease());
  job.clear_lease();
}

void LeaseActions::SendStop(const std::string& node, const std::string& job, int64_t epoch,
                           int64_t grace_ms) {
  if (!state_.nodes_.count(node)) return;
  v1::StopOrder stop;
  stop.set_job_id(job);
  stop.set_epoch(epoch);
  stop.set_grace_ms(grace_ms);
  state_.leases_.OrderStop(node, stop);
}

void LeaseActions::AccountService(int64_t now_ms) {
  std::vector<std::string> running;
  for (const auto& [id, launch] : state_.leases_.all_launches()) {
    if (!launch.launched_on.empty()) running.push_back(id);
  }
  for (const std::string& id : running) {
    // Time held, as the core's JobView::attained_service_s means it.
    v1::Job& held = state_.jobs_.Edit(id);
    AddResourceTime(held, state_.leases_.LaunchOf(id), now_ms);
    held.set_attained_service_ms(ServiceNowMs(id, now_ms));
    held.set_run_ms(RunNowMs(held, state_.leases_.LaunchOf(id), now_ms));
    state_.leases_.EditLaunch(id).service_from_ms = now_ms;
    state_.jobs_.MarkDirty(id);
  }
}

int64_t LeaseActions::ServiceNowMs(const std::string& id, int64_t now_ms) const {
  return ServiceNowMs(state_.jobs_.at(id), state_.leases_.LaunchOf(id), now_ms);
}

namespace {
// Time `job` has held its launched lease since it was last accounted (0
// when it holds none): what ServiceNowMs and RunNowMs add.
int64_t HeldSinceAccountedMs(const v1::Job& job, const LeaseTable::Launch& launch, int64_t now_ms) {
  const bool holding = job.has_lease() && !launch.launched_on.empty() && launch.service_from_ms > 0;
  return holding ? std::max<int64_t>(0, now_ms - launch.service_from_ms) : 0;
}
}  // namespace

void LeaseActions::AddResourceTime(v1::Job& job, const LeaseTable::Launch& launch, int64_t now_ms) {
  const int64_t held_ms = HeldSinceAccountedMs(job, launch, now_ms);
  if (held_ms == 0) return;
  double gpus = 0, cpus = 0, mem_gb = 0;
  for (const v1::LeaseSlice& s : job.lease().slices()) {
    gpus += s.gpu_ids_size();
    cpus += s.cpu_ids_size();
    mem_gb += s.mem_gb();
  }
  const double held_s = held_ms / 1000.0;
  job.set_gpu_seconds(job.gpu_seconds() + gpus * held_s);
  job.set_cpu_seconds(job.cpu_seconds() + cpus * held_s);
  job.set_mem_gb_seconds(job.mem_gb_seconds() + mem_gb * held_s);
  state_.NoteGpuUsage(job, gpus * held_s, now_ms);
}

int64_t LeaseActions::RunNowMs(const v1::Job& job, const LeaseTable::Launch& launch, int64_t now_ms) {
  return job.run_ms() + HeldSinceAccountedMs(job, launch, now_ms);
}

void LeaseActions::TimeOutJobsPastTheirLimit(Batch& batch, int64_t now_ms) {
  std::vector<std::string> over;
  for (const auto& [id, launch] : state_.leases_.all_launches()) {
    const v1::Job& job = state_.jobs_.at(id);
    const int64_t limit_s = job.spec().time_limit_s();
    if (limit_s > 0 && !IsTerminal(job.state()) && RunNowMs(job, launch, now_ms) >= limit_s * 1000) {
      over.push_back(id);
    }
  }
  for (const std::string& id : over) {
    v1::Job& job = state_.jobs_.Edit(id);
    const std::string why =
        absl::StrCat("ran for its time limit of ", service::FormatDurationSeconds(job.spec().time_limit_s()));
    state_.jobs_.Move(job, JobMove::kTimeOut, why, now_ms);
    EndLease(job, "timed out", LeaseEndCause::kTimedOut, batch, now_ms);
    state_.Record(batch, job, why, now_ms);
  }
}

int64_t LeaseActions::ServiceNowMs(const v1::Job& job, const LeaseTable::Launch& launch, int64_t now_ms) {
  const int64_t held_ms = HeldSinceAccountedMs(job, launch, now_ms);
  if (held_ms == 0) return job.attained_service_ms();
  // On a cluster of several GPU types, in the zoo's base type's seconds.
  const double weight = ServiceWeightOf(job.lease());
  return job.attained_service_ms() + (weight == 1.0 ? held_ms : std::llround(held_ms * weight));
}

}  // namespace synergy::daemon
