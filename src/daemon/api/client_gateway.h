#pragma once
// synergyd's client gateway: what users and admins ask of the scheduler,
// after services.cc has authenticated them and checked the method's access
// rule. Submissions (in three steps, so that they share the store's
// fsyncs), cancels, reads of jobs, nodes, the cluster and a lease's
// output (client_requests.cc), listing a page at a time
// (job_listing.cc), and the controls of one job: hold, release, requeue,
// priority (job_controls.cc); a waiting job read says why and until when
// (waiting_reasons.cc). Each change is one stored change; nothing
// changes on error.
//
// It acts on DaemonState's tables through the state's changes and lease
// actions (a friend of it); DaemonState's client API is this gateway's,
// under the daemon's lock (shared for reads), but for StoreSubmission,
// which waits on the store without it.
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/state/daemon_state.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

class ClientGateway {
 public:
  using PreparedSubmit = DaemonState::PreparedSubmit;
  using LogSource = DaemonState::LogSource;
  using JobPage = DaemonState::JobPage;

  explicit ClientGateway(DaemonState& state) : state_(state) {}
  ClientGateway(const ClientGateway&) = delete;
  ClientGateway& operator=(const ClientGateway&) = delete;

  // DaemonState's client API (see there).
  absl::StatusOr<std::string> Submit(const v1::JobSpec& spec, const std::string& owner, int64_t now_ms);
  absl::StatusOr<PreparedSubmit> PrepareSubmit(const v1::JobSpec& spec, const std::string& owner, int64_t now_ms);
  absl::Status StoreSubmission(const PreparedSubmit& prepared);
  absl::StatusOr<std::string> FinishSubmit(PreparedSubmit prepared, const absl::Status& stored);
  int ActiveJobsOf(const std::string& owner) const;
  absl::StatusOr<v1::Job> Cancel(const std::string& job_id, int64_t now_ms);
  absl::StatusOr<v1::Job> GetJob(const std::string& job_id) const;
  absl::StatusOr<LogSource> LogSourceOf(const std::string& job_id, int64_t epoch, int rank) const;
  absl::StatusOr<std::string> OwnerOf(const std::string& job_id) const;
  absl::StatusOr<JobPage> ListJobs(const v1::ListJobsRequest& request) const;
  std::vector<v1::Node> ListNodes(int64_t now_ms) const;
  v1::ClusterState Cluster() const;
  absl::StatusOr<v1::Node> SetDrained(const std::string& node, bool drained, int64_t now_ms, const std::string& reason);
  absl::StatusOr<v1::Job> Hold(const std::string& job_id, const std::string& by, bool by_admin, int64_t now_ms);
  absl::StatusOr<v1::Job> Release(const std::string& job_id, const std::string& by, bool by_admin, int64_t now_ms);
  absl::StatusOr<v1::Job> Requeue(const std::string& job_id, const std::string& by, int64_t now_ms);
  absl::StatusOr<v1::Job> SetPriority(const std::string& job_id, int priority, const std::string& by, bool may_raise,
                                      int64_t now_ms);

 private:
  using JobRuntime = JobTable::Runtime;
  // It waits for a lease (submitted, queued or suspended; not held).
  bool Waiting(const v1::Job& job) const;
  // Each dependency of `spec` known (an array's job by its index, as
  // named: resolved when judged), naming at most kMaxDependencyJobs jobs
  // in all, and not one that can never be met: INVALID_ARGUMENT naming it
  // otherwise (UNAVAILABLE when the store cannot say). Dependencies name
  // only jobs accepted before, so they can form no cycle.
  absl::Status CheckDependenciesKnown(const v1::JobSpec& spec) const;
  // "waiting: tenant vision holds 4 of its quota of 4 GPUs" when `job`
  // would take its tenant past its quota (`tenant_gpus`: GPUs leases hold,
  // by tenant); "" otherwise.
  std::string AtQuota(const v1::Job& job, const std::map<std::string, int>& tenant_gpus) const;
  // ListJobs of one array: the page's candidates, at most limit + 1.
  absl::Status ArrayPage(const v1::ListJobsRequest& request, size_t limit, std::vector<v1::Job>& live,
                         std::vector<v1::Job>& retired) const;
  static std::string SubmittedEvent(const v1::Job& job, const std::string& owner);
  // Copies of jobs as read: each waiting one gets the next round's time,
  // the waiting jobs ahead of it, and a reason that counts them.
  void SayWhyWaiting(std::vector<v1::Job>& jobs) const;
  DaemonState& state_;
};

}  // namespace synergy::daemon
