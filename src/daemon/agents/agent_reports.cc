// AgentGateway, the agent side: a job's agent registers under its lease,
// reports progress (and learns of the lease's end), confirms checkpoints
// and sends its measured profile.
#include "daemon/agents/agent_gateway.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/round/lease_actions.h"

namespace synergy::daemon {

absl::StatusOr<v1::AgentWelcome> AgentGateway::RegisterAgent(const v1::AgentHello& hello, int64_t) {
  auto it = state_.jobs_.find(hello.job_id());
  if (it == state_.jobs_.end()) return absl::NotFoundError(absl::StrCat("job ", hello.job_id(), ": no such job"));
  const v1::Job& job = it->second;
  if (!job.has_lease() || job.lease().epoch() != hello.epoch() || state_.Terminal(job)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", job.id(), ": lease ", hello.epoch(), " is not current (current: ",
        job.has_lease() ? std::to_string(job.lease().epoch()) : "none", "); stop"));
  }
  v1::AgentWelcome w;
  w.set_resume_iteration(job.checkpoint_iteration());
  w.set_checkpoint_path(job.checkpoint_path());
  w.set_total_iterations(job.spec().iterations());
  for (const v1::LeaseSlice& s : job.lease().slices()) {
    if (s.rank() != hello.rank()) continue;
    *w.mutable_cpu_ids() = s.cpu_ids();
    w.set_mem_gb(s.mem_gb());
  }
  return w;
}

absl::StatusOr<v1::ProgressReply> AgentGateway::ReportProgress(const v1::ProgressReport& report,
                                                              int64_t now_ms) {
  // Reports the board took come first, so the latest throughput wins.
  state_.FoldProgress();
  auto it = state_.jobs_.find(report.job_id());
  if (it == state_.jobs_.end()) return absl::NotFoundError(absl::StrCat("job ", report.job_id(), ": no such job"));
  const v1::Job& job = it->second;
  v1::ProgressReply reply;
  const bool current = job.has_lease() && job.lease().epoch() == report.epoch() && !state_.Terminal(job);
  if (!current && !state_.leases_.FindEnding(report.job_id(), report.epoch())) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job.id(), ": lease ", report.epoch(), " is not current; stop"));
  }
  // Progress is kept in memory and stored with the next flush (no Change:
  // an agent's report is advice, and it repeats). What it says of resizes
  // is stored.
  state_.jobs_.NoteProgress(job.id(), report.iterations_done(), report.throughput());
  if (current) {
    if (absl::Status st = state_.actions().NoteResizeReport(report, now_ms); !st.ok()) return st;
    state_.actions().TellAllocation(state_.jobs_.at(report.job_id()), report.rank(), reply);
  }
  reply.set_lease_ending(!current);
  if (!current) {
    EndingLease& ending = *state_.leases_.EditEnding(report.job_id(), report.epoch());
    if (report.rank() == 0 && report.stop_at_iteration() > 0) ending.stop_at = report.stop_at_iteration();
    reply.set_stop_at_iteration(ending.stop_at);
  }
  return reply;
}

namespace {
constexpr int64_t kCheckpointEventEveryMs = 1000;
}  // namespace

absl::Status AgentGateway::ConfirmCheckpoint(const v1::CheckpointDone& done, int64_t now_ms) {
  auto it = state_.jobs_.find(done.job_id());
  if (it == state_.jobs_.end()) return absl::NotFoundError(absl::StrCat("job ", done.job_id(), ": no such job"));
  state_.FoldProgress();
  DaemonState::Change change(state_);
  v1::Job& job = state_.jobs_.Edit(done.job_id());
  JobRuntime& rt = state_.jobs_.EditRuntime(done.job_id());
  const bool current = job.has_lease() && job.lease().epoch() == done.epoch();
  if (!current && !state_.leases_.FindEnding(done.job_id(), done.epoch())) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job.id(), ": lease ", done.epoch(), " is not current; checkpoint refused"));
  }
  if (done.iteration() < job.checkpoint_iteration()) {
    return absl::FailedPreconditionError(absl::StrCat("job ", job.id(), ": checkpoint at iteration ",
                                                      done.iteration(), " is older than ",
                                                      job.checkpoint_iteration()));
  }
  // The same checkpoint again changes nothing: no write, no event (an agent
  // repeating it must not fill the store or hold the lock).
  if (!done.finished() && done.iteration() == job.checkpoint_iteration() && done.path() == job.checkpoint_path()) {
    return absl::OkStatus();
  }
  job.set_checkpoint_iteration(done.iteration());
  job.set_checkpoint_path(done.path());
  job.set_iterations_done(std::max(job.iterations_done(), done.iteration()));
  Batch batch;
  // Checkpoints confirmed faster than one a second are stored, but told as
  // one event a second: an agent checkpointing in a loop must not flood
  // its job's events (the store keeps the newest Store::kMaxEventsPerJob).
  if (done.finished() || now_ms - rt.checkpoint_event_ms >= kCheckpointEventEveryMs) {
    state_.Record(batch, job, absl::StrFormat("checkpoint at iteration %d (lease %d)%s", done.iteration(),
                                       done.epoch(), done.finished() ? ", finished" : ""),
           now_ms);
    rt.checkpoint_event_ms = now_ms;
  } else {
    job.set_updated_unix_ms(now_ms);
    batch.PutJob(job);
  }
  if (done.finished() && !state_.Terminal(job)) {
    // Done, durably, now: the lease stays until the process has exited (its
    // ids are not handed on before), but nothing reschedules the job, even
    // if the exit is never reported (a restart, a lost node).
    state_.jobs_.Move(job, JobMove::kSucceed, "finished its iterations", now_ms);
    // A newer lease (the round moved the job while it finished) that has
    // not launched is withdrawn: nothing will run under it.
    if (job.has_lease() && job.lease().epoch() != done.epoch() && !state_.leases_.LaunchOf(job.id()).launched()) {
      state_.actions().WithdrawForFinishedJob(job, batch, now_ms);
    }
    batch.PutJob(job);
  }
  if (done.finished()) rt.finished = true;
  return change.Commit(std::move(batch));
}

absl::Status AgentGateway::SubmitProfile(const v1::MeasuredProfile& profile, int64_t now_ms) {
  auto it = state_.jobs_.find(profile.job_id());
  if (it == state_.jobs_.end()) return absl::NotFoundError(absl::StrCat("job ", profile.job_id(), ": no such job"));
  DaemonState::Change change(state_);
  v1::Job& job = state_.jobs_.Edit(profile.job_id());
  if (!job.has_lease() || job.lease().epoch() != profile.epoch() || state_.Terminal(job)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job.id(), ": lease ", profile.epoch(), " is not current; profile refused"));
  }
  if (profile.points_size() == 0) return absl::InvalidArgumentError("points: empty");
  // A job measures itself under a profiling lease, or once if it never had
  // one: not over and over (each is a write and an event).
  if (!job.lease().profiling() && job.has_measured_profile()) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job.id(), ": already profiled; a new profile needs a profiling lease"));
  }
  for (int i = 0; i < profile.points_size(); ++i) {
    const v1::ProfilePoint& p = profile.points(i);
    if (!(p.cpus() > 0) || !(p.mem_gb() > 0) || !(p.throughput() >= 0)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "points[%d]: cpus %g, mem_gb %g, throughput %g: cpus and mem_gb must be > 0, throughput >= 0", i,
          p.cpus(), p.mem_gb(), p.throughput()));
    }
  }
  *job.mutable_measured_profile() = profile;
  // The type it ran on is the node's, as the node declared it: an agent
  // says nothing here that synergyd would trust.
  job.mutable_measured_profile()->clear_gpu_type();
  if (job.lease().slices_size() > 0) {
    auto node = state_.nodes_.find(job.lease().slices(0).node());
    if (node != state_.nodes_.end()) job.mutable_measured_profile()->set_gpu_type(node->second.info.capacity().gpu_type());
  }
  Batch batch;
  state_.Record(batch, job,
         absl::StrFormat("profile measured: %d points in %.1f s (lease %d%s)", profile.points_size(),
                         profile.seconds(), profile.epoch(),
                         job.measured_profile().gpu_type().empty()
                             ? ""
                             : absl::StrCat(", on ", job.measured_profile().gpu_type())),
         now_ms);
  // The profiling lease has done its work: the job checkpoints, exits and
  // waits for a round that schedules it with what it measured.
  if (job.lease().profiling()) state_.actions().EndLease(job, "profile measured", LeaseEndCause::kProfiled, batch, now_ms);
  return change.Commit(std::move(batch));
}

}  // namespace synergy::daemon
