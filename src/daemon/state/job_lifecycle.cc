#include "daemon/state/job_lifecycle.h"

namespace synergy::daemon {

bool IsTerminal(v1::JobState state) {
  return state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED || state == v1::JOB_STATE_CANCELLED ||
         state == v1::JOB_STATE_TIMED_OUT;
}

bool MoveAllowed(JobMove move, v1::JobState from) {
  if (IsTerminal(from)) return false;
  const bool waiting =
      from == v1::JOB_STATE_PENDING || from == v1::JOB_STATE_QUEUED || from == v1::JOB_STATE_SUSPENDED;
  switch (move) {
    case JobMove::kWait:
      return from == v1::JOB_STATE_PENDING || from == v1::JOB_STATE_QUEUED;
    case JobMove::kLaunch:
      return from == v1::JOB_STATE_RUNNING;
    case JobMove::kProfile:
      return waiting;
    case JobMove::kSuspend:
      return from == v1::JOB_STATE_RUNNING || from == v1::JOB_STATE_PROFILING;
    case JobMove::kGrant:
    case JobMove::kRequeue:
    case JobMove::kSucceed:
    case JobMove::kFail:
    case JobMove::kCancel:
    case JobMove::kTimeOut:
      return true;
  }
  return false;
}

v1::JobState MoveTarget(JobMove move) {
  switch (move) {
    case JobMove::kWait: return v1::JOB_STATE_QUEUED;
    case JobMove::kGrant: return v1::JOB_STATE_RUNNING;
    case JobMove::kLaunch: return v1::JOB_STATE_RUNNING;
    case JobMove::kProfile: return v1::JOB_STATE_PROFILING;
    case JobMove::kRequeue: return v1::JOB_STATE_QUEUED;
    case JobMove::kSuspend: return v1::JOB_STATE_SUSPENDED;
    case JobMove::kSucceed: return v1::JOB_STATE_SUCCEEDED;
    case JobMove::kFail: return v1::JOB_STATE_FAILED;
    case JobMove::kCancel: return v1::JOB_STATE_CANCELLED;
    case JobMove::kTimeOut: return v1::JOB_STATE_TIMED_OUT;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

const char* MoveName(JobMove move) {
  switch (move) {
    case JobMove::kWait: return "wait";
    case JobMove::kGrant: return "grant";
    case JobMove::kLaunch: return "launch";
    case JobMove::kProfile: return "profile";
    case JobMove::kRequeue: return "requeue";
    case JobMove::kSuspend: return "suspend";
    case JobMove::kSucceed: return "succeed";
    case JobMove::kFail: return "fail";
    case JobMove::kCancel: return "cancel";
    case JobMove::kTimeOut: return "time_out";
  }
  return "?";
}

void NoteLeaseNodes(v1::Job& job, const v1::Lease& lease) {
  v1::LeaseNodes* noted = job.add_lease_nodes();
  noted->set_epoch(lease.epoch());
  for (const v1::LeaseSlice& s : lease.slices()) noted->add_nodes(s.node());
  if (job.lease_nodes_size() > kMaxLeaseNodes) {
    job.mutable_lease_nodes()->DeleteSubrange(0, job.lease_nodes_size() - kMaxLeaseNodes);
  }
}

void ForgetLeaseNodes(v1::Job& job, int64_t epoch) {
  auto* noted = job.mutable_lease_nodes();
  for (int i = noted->size() - 1; i >= 0; --i) {
    if (noted->Get(i).epoch() == epoch) noted->DeleteSubrange(i, 1);
  }
}

bool Move(v1::Job& job, JobMove move, const std::string& reason, int64_t now_ms) {
  if (!MoveAllowed(move, job.state())) return false;
  job.set_state(MoveTarget(move));
  job.set_reason(reason);
  job.set_updated_unix_ms(now_ms);
  if (IsTerminal(job.state())) job.set_finished_unix_ms(now_ms);
  return true;
}

}  // namespace synergy::daemon
