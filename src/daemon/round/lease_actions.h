#pragma once
// What synergyd's owners of transitions (the gateways and the round
// driver, state/daemon_state.h) do to leases, each the one place it is
// done: grant a lease from a plan's assignment with ids from the node's
// free ids, end one (the agent checkpoints, then stop orders after the
// grace), drop one whose processes are gone, order a stop
// (lease_changes.cc); amend one in place (resize_in_place.cc); lend whole
// nodes to jobs that want a profile (agents/profiling_leases.cc); and
// count the service a lease's time held adds to its job.
//
// It acts on DaemonState's tables (a friend of it), inside the caller's
// change: every edit is undone with it, and stored with its batch.
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/state/daemon_state.h"
#include "synergy/plan.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

class LeaseActions {
 public:
  explicit LeaseActions(DaemonState& state) : state_(state) {}
  LeaseActions(const LeaseActions&) = delete;
  LeaseActions& operator=(const LeaseActions&) = delete;

  // A job to lend a whole node to before it is scheduled: it asks for a
  // profile, has none, holds no lease, and fits on one registered node.
  bool WantsProfiling(const v1::Job& job) const;
  // profile_wait_s has passed since it was submitted: if it still wants a
  // profile, the round schedules it unprofiled meanwhile.
  bool ProfileWaitOver(const v1::Job& job, int64_t now_ms) const;
  // Lends free nodes to the jobs that want a profile, higher priority
  // classes first, then in queue order.
  void GrantProfilingLeases(Batch& batch, int64_t now_ms);
  // An event (once per daemon run) for each job whose wait just ran out.
  void NoteProfileWaitsOver(Batch& batch, int64_t now_ms);
  // The node's GPU and CPU ids no lease is granted (in its capacity's order),
  // less what other work holds there (Node.foreign).
  v1::NodeResources FreeIds(const std::string& node) const;
  // `service_weight` > 0: the lease's (typed clusters); 0: none (1).
  // `between_rounds`: a launch between rounds (its event says so).
  void Grant(v1::Job& job, const Assignment& assignment, const std::vector<std::string>& node_names,
             double service_weight, Batch& batch, int64_t now_ms, bool between_rounds = false);
  void EndLease(v1::Job& job, const std::string& why, LeaseEndCause cause, Batch& batch, int64_t now_ms);
  // Forgets the current lease (its processes are gone or never started);
  // a launched one counts as the job's last run.
  void DropLease(v1::Job& job, LeaseEndCause cause, int64_t now_ms);
  // Withdraws the job's current lease, which never launched, because the
  // job finished under an earlier one: said in an event, forgotten by
  // `logs` (no node holds its output) and dropped.
  void WithdrawForFinishedJob(v1::Job& job, Batch& batch, int64_t now_ms);
  void SendStop(const std::string& node, const std::string& job, int64_t epoch, int64_t grace_ms);
  // Adds the time held since service_from_ms to each running job's
  // attained service and run time (stored with the next flush).
  void AccountService(int64_t now_ms);
  // A job's run time now (Job.run_ms, stored or not): wall time holding a
  // launched lease, summed over its leases, whatever the GPU type.
  static int64_t RunNowMs(const v1::Job& job, const LeaseTable::Launch& launch, int64_t now_ms);
  // The lease's GPUs, CPUs and memory times the time held since it was
  // last accounted, into the job's totals (gpu_seconds, ...) and its
  // tenant's GPU-seconds counter (/metrics). Called where service is
  // accounted, before the accounting time moves on.
  void AddResourceTime(v1::Job& job, const LeaseTable::Launch& launch, int64_t now_ms);
  // Each job that has run for its time limit (spec.time_limit_s) ends as
  // TIMED_OUT, its lease ending as a cancelled job's does (agents
  // checkpoint first), said in an event.
  void TimeOutJobsPastTheirLimit(Batch& batch, int64_t now_ms);
  // The attained service of `id` now, stored or not: time held, each
  // lease's weighted by its service_weight (typed clusters).
  int64_t ServiceNowMs(const std::string& id, int64_t now_ms) const;
  static int64_t ServiceNowMs(const v1::Job& job, const LeaseTable::Launch& launch, int64_t now_ms);

  // Resize in place (resize_in_place.cc).
  // Amends the job's current lease to `planned`'s CPUs and memory on the
  // same node and GPUs (a new revision, stored with `batch`): CPU ids it
  // holds are kept first, then free ones; a lower memory limit waits for
  // the job to shed (mem_limit_gb). False when nothing changes (no free
  // CPU ids to grow into).
  bool ResizeLease(v1::Job& job, const Assignment& planned, const std::vector<std::string>& node_names,
                   Batch& batch, int64_t now_ms);
  // Resize orders for the processes `request` reports whose node has not
  // applied their lease's latest revision and memory limit; a growth waits
  // while another process on the node still holds the CPU ids. Notes the
  // revisions nodes have applied (the agent is told from then on).
  std::vector<v1::ResizeOrder> ResizesFor(const v1::HeartbeatRequest& request, int64_t now_ms);
  // The agent's news in a progress report: it follows resizes, or it has
  // applied a revision (then a lowered memory limit is lowered). Stored.
  absl::Status NoteResizeReport(const v1::ProgressReport& report, int64_t now_ms);
  // Memory limits whose shedding ran past lease_grace_s (counted from the
  // node applying the revision) are lowered.
  void LowerOverdueMemoryLimits(Batch& batch, int64_t now_ms);
  // What a progress reply tells the job's agent of its allocation: the
  // lease's latest revision once its node has applied it.
  void TellAllocation(const v1::Job& job, int rank, v1::ProgressReply& reply) const;

 private:
  using JobRuntime = JobTable::Runtime;
  DaemonState& state_;
};

}  // namespace synergy::daemon
