// NodeGateway, a process exit and what it means for its job: a lease that
// was ending, a crash (retried up to max_retries), or an end (done, or
// stopped by its node).
#include "daemon/nodes/node_gateway.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "daemon/round/lease_actions.h"
#include "service/names.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

void NodeGateway::HandleExit(const std::string& node, const v1::ProcessExit& e, Batch& batch,
                             int64_t now_ms) {
  if (state_.nodes_.count(node)) {
    state_.nodes_.Edit(node).processes.erase({e.job_id(), e.epoch()});
    state_.leases_.Release(node, {e.job_id(), e.epoch()});
  }
  if (!state_.jobs_.count(e.job_id())) return;
  v1::Job& job = state_.jobs_.Edit(e.job_id());
  const std::string how = e.reason().empty() ? absl::StrCat("exit ", e.exit_code()) : e.reason();
  if (EndingLease* end = state_.leases_.EditEnding(e.job_id(), e.epoch()); end != nullptr) {
    ExitOfEndingLease(*end, job, node, e, how, batch, now_ms);
    return;
  }
  if (!job.has_lease() || job.lease().epoch() != e.epoch()) return;  // stale: ignore
  LeaseTable::Launch& launch = state_.leases_.EditLaunch(job.id());
  launch.exited_on.insert(node);
  if (e.exit_code() != 0 && !e.stopped_by_node()) {
    CrashOfCurrentLease(job, launch, node, e, how, batch, now_ms);
  } else {
    EndOfCurrentLease(job, launch, node, e, how, batch, now_ms);
  }
}

void NodeGateway::ExitOfEndingLease(EndingLease& end, v1::Job& job, const std::string& node, const v1::ProcessExit& e,
                                    const std::string& how, Batch& batch, int64_t now_ms) {
  // An ended lease's process is gone: its resources are free now; the
  // lease is over when every rank is.
  end.exited.insert(node);
  for (const v1::LeaseSlice& s : end.lease.slices()) {
    if (!end.exited.count(s.node())) return;
  }
  state_.leases_.FinishEnding(e.job_id(), e.epoch());
  const JobRuntime& rt = state_.jobs_.EditRuntime(job.id());
  const bool ran_to_its_end =
      e.exit_code() == 0 && (rt.finished || (!e.stopped_by_node() && !job.spec().uses_agent()));
  if (ran_to_its_end && job.has_lease() && !state_.Terminal(job) && !state_.leases_.LaunchOf(job.id()).launched()) {
    // A newer lease, granted while this one ended, waits for this exit to
    // launch: the job is done, so nothing will run under it.
    state_.actions().WithdrawForFinishedJob(job, batch, now_ms);
  }
  if (!job.has_lease() && !state_.Terminal(job)) {
    if (e.exit_code() == 0 && rt.finished) {
      state_.jobs_.Move(job, JobMove::kSucceed, "finished its iterations", now_ms);
    } else if (e.exit_code() == 0 && !e.stopped_by_node() && !job.spec().uses_agent()) {
      // A plain job that exited 0 on its own before its stop reached it
      // (it finished as the round ended its lease) is done: run again,
      // a job with side effects would do them twice.
      state_.jobs_.Move(job, JobMove::kSucceed, "exited 0 as its lease ended", now_ms);
    } else if (job.state() == v1::JOB_STATE_RUNNING || job.state() == v1::JOB_STATE_PROFILING) {
      state_.jobs_.Move(job, JobMove::kSuspend,
                 job.spec().uses_agent() ? absl::StrFormat("checkpointed at iteration %d", job.checkpoint_iteration())
                                         : "stopped at lease end",
                 now_ms);
    }
  }
  state_.Record(batch, job, absl::StrFormat("lease %d ended on %s: %s", e.epoch(), node, how), now_ms);
}

void NodeGateway::CrashOfCurrentLease(v1::Job& job, LeaseTable::Launch& launch, const std::string& node,
                                      const v1::ProcessExit& e, const std::string& how, Batch& batch, int64_t now_ms) {
  const int retries = state_.MaxRetries(job);
  // Other ranks of the job are stopped; the lease is ending until they exit.
  bool others = false;
  for (const v1::LeaseSlice& s : job.lease().slices()) {
    if (launch.exited_on.count(s.node())) continue;
    state_.actions().SendStop(s.node(), job.id(), job.lease().epoch(), state_.config_.lease_grace_ms());
    others = true;
  }
  if (others) {
    EndingLease ending;
    ending.lease = job.lease();
    ending.since_ms = now_ms;
    ending.stop_sent = true;
    ending.exited = launch.exited_on;
    state_.leases_.StartEnding(std::move(ending));
  }
  state_.actions().DropLease(job, state_.Terminal(job) ? LeaseEndCause::kExited : LeaseEndCause::kCrashed, now_ms);
  if (state_.Terminal(job)) {
    state_.Record(batch, job, absl::StrFormat("exited on %s: %s", node, how), now_ms);
    return;
  }
  // Crashes, not launches: a job preempted or moved many times has not
  // used up its retries.
  job.set_crashes(job.crashes() + 1);
  if (e.launch_refused()) {
    state_.jobs_.Move(job, JobMove::kFail, absl::StrFormat("node %s refused to run it: %s", node, how), now_ms);
  } else if (job.crashes() <= retries) {
    state_.jobs_.Move(job, JobMove::kRequeue,
               absl::StrFormat("crashed on %s (%s); retry %d of %d", node, how, job.crashes(), retries), now_ms);
    ++state_.counters_.jobs_requeued;
  } else {
    state_.jobs_.Move(job, JobMove::kFail, absl::StrFormat("crashed %d times; last on %s: %s", job.crashes(), node, how),
               now_ms);
  }
  state_.Record(batch, job, job.reason(), now_ms);
}

void NodeGateway::EndOfCurrentLease(v1::Job& job, LeaseTable::Launch& launch, const std::string& node,
                                    const v1::ProcessExit& e, const std::string& how, Batch& batch, int64_t now_ms) {
  // Every slice must exit before the job is done.
  for (const v1::LeaseSlice& s : job.lease().slices()) {
    if (!launch.exited_on.count(s.node())) {
      state_.Record(batch, job, absl::StrFormat("rank on %s exited: %s", node, how), now_ms);
      return;
    }
  }
  const bool finished = state_.jobs_.EditRuntime(job.id()).finished;
  const int64_t epoch = job.lease().epoch();
  state_.actions().DropLease(job, LeaseEndCause::kExited, now_ms);
  if (!state_.Terminal(job)) {
    if (e.stopped_by_node()) {
      state_.jobs_.Move(job, JobMove::kSuspend, "stopped by the node", now_ms);
    } else {
      state_.jobs_.Move(job, JobMove::kSucceed,
                 finished || !job.spec().uses_agent() ? "exited with status 0"
                                                      : "exited with status 0 before its last iteration",
                 now_ms);
    }
  }
  state_.Record(batch, job, absl::StrFormat("lease %d: process on %s %s; job %s", epoch, node, how,
                                     service::JobStateName(job.state())),
         now_ms);
}
}  // namespace synergy::daemon
