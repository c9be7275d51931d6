// ClientGateway, the controls of one job after its submission: hold, release,
// requeue and a new priority class. Each is one stored change (the job and
// an event together); the lease a hold or requeue ends follows the same
// path as a round's preemption (agents checkpoint within lease_grace_s).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/api/client_gateway.h"
#include "daemon/round/lease_actions.h"
#include "service/names.h"

namespace synergy::daemon {
namespace {

std::string HeldReason(const v1::Job& job) {
  return absl::StrCat("held by ", job.held_by_admin() ? "admin " : "", job.held_by(), " (synergyctl release ",
                      job.id(), ")");
}

}  // namespace

absl::StatusOr<v1::Job> ClientGateway::Hold(const std::string& job_id, const std::string& by, bool by_admin,
                                          int64_t now_ms) {
  auto it = state_.jobs_.find(job_id);
  if (it == state_.jobs_.end()) return absl::NotFoundError(absl::StrCat("job ", job_id, ": no such job"));
  if (state_.Terminal(it->second)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job_id, " is already ", service::JobStateName(it->second.state())));
  }
  // An admin's hold over a user's makes it the admin's (the user can no
  // longer release it); any other second hold is refused.
  const bool upgrade = it->second.held() && by_admin && !it->second.held_by_admin();
  if (it->second.held() && !upgrade) {
    return absl::FailedPreconditionError(absl::StrCat("job ", job_id, " is already held by ",
                                                      it->second.held_by_admin() ? "admin " : "",
                                                      it->second.held_by()));
  }
  DaemonState::Change change(state_);
  v1::Job& job = state_.jobs_.Edit(job_id);
  Batch batch;
  job.set_held(true);
  job.set_held_by(by);
  job.set_held_by_admin(by_admin);
  if (job.has_lease()) {
    state_.actions().EndLease(job, absl::StrCat("held by ", by), LeaseEndCause::kHeld, batch, now_ms);
  } else {
    job.set_reason(HeldReason(job));
  }
  // Last, so that the batch has the job as it is now (Record stores a copy).
  state_.Record(batch, job, absl::StrCat("held by ", by), now_ms);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  return state_.jobs_.at(job_id);
}

absl::StatusOr<v1::Job> ClientGateway::Release(const std::string& job_id, const std::string& by, bool by_admin,
                                             int64_t now_ms) {
  auto it = state_.jobs_.find(job_id);
  if (it == state_.jobs_.end()) return absl::NotFoundError(absl::StrCat("job ", job_id, ": no such job"));
  if (!it->second.held()) return absl::FailedPreconditionError(absl::StrCat("job ", job_id, " is not held"));
  if (it->second.held_by_admin() && !by_admin) {
    return absl::PermissionDeniedError(
        absl::StrCat("job ", job_id, " was held by admin ", it->second.held_by(), ": only an admin releases it"));
  }
  DaemonState::Change change(state_);
  v1::Job& job = state_.jobs_.Edit(job_id);
  Batch batch;
  job.set_held(false);
  job.clear_held_by();
  job.set_held_by_admin(false);
  if (!state_.Terminal(job) && !job.has_lease()) job.set_reason(absl::StrCat("released by ", by, "; waits for a round"));
  state_.Record(batch, job, absl::StrCat("released by ", by), now_ms);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  state_.NoteLaunchEvent(now_ms);
  return state_.jobs_.at(job_id);
}

absl::StatusOr<v1::Job> ClientGateway::Requeue(const std::string& job_id, const std::string& by, int64_t now_ms) {
  auto it = state_.jobs_.find(job_id);
  if (it == state_.jobs_.end()) return absl::NotFoundError(absl::StrCat("job ", job_id, ": no such job"));
  if (state_.Terminal(it->second) || !it->second.has_lease()) {
    return absl::FailedPreconditionError(absl::StrCat("job ", job_id, " is ",
                                                      service::JobStateName(it->second.state()),
                                                      ": only a job that holds a lease is requeued"));
  }
  DaemonState::Change change(state_);
  v1::Job& job = state_.jobs_.Edit(job_id);
  Batch batch;
  state_.actions().EndLease(job, absl::StrCat("requeued by ", by), LeaseEndCause::kRequeued, batch, now_ms);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  return state_.jobs_.at(job_id);
}

absl::StatusOr<v1::Job> ClientGateway::SetPriority(const std::string& job_id, int priority, const std::string& by,
                                                 bool may_raise, int64_t now_ms) {
  auto it = state_.jobs_.find(job_id);
  if (it == state_.jobs_.end()) return absl::NotFoundError(absl::StrCat("job ", job_id, ": no such job"));
  if (state_.Terminal(it->second)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job_id, " is already ", service::JobStateName(it->second.state())));
  }
  const int before = it->second.spec().priority();
  if (priority > before && !may_raise) {
    return absl::PermissionDeniedError(absl::StrCat("job ", job_id, ": priority ", priority, " is above its ",
                                                    before, "; only an admin raises a priority"));
  }
  if (priority == before) return it->second;
  DaemonState::Change change(state_);
  v1::Job& job = state_.jobs_.Edit(job_id);
  Batch batch;
  job.mutable_spec()->set_priority(priority);
  state_.Record(batch, job, absl::StrFormat("priority %d -> %d by %s", before, priority, by), now_ms);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  return state_.jobs_.at(job_id);
}

}  // namespace synergy::daemon
