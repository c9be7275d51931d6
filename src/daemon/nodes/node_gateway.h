#pragma once
// synergyd's node gateway: what nodes (synergy-node, or the Slurm
// executor's loop speaking for Slurm's nodes) report and are told, and the
// transitions that follow: a registration adopts the processes a node
// reports (registration.cc); a heartbeat is the node's whole report,
// reconciled with what should run there, and its reply the orders that
// follow from the difference (heartbeats.cc, launch_orders.cc,
// docs/protocol.md); a process exit ends, retries or finishes its job
// (process_exits.cc); a node that leaves or falls silent loses its leases,
// and the tick between rounds finds them (node_loss.cc).
//
// It acts on DaemonState's tables through the state's own changes and
// lease actions (a friend of it): DaemonState's RegisterNode, Heartbeat
// and Tick are this gateway's, under the daemon's lock.
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/state/daemon_state.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

class NodeGateway {
 public:
  explicit NodeGateway(DaemonState& state) : state_(state) {}
  NodeGateway(const NodeGateway&) = delete;
  NodeGateway& operator=(const NodeGateway&) = delete;

  // DaemonState::RegisterNode, Heartbeat and Tick (see there).
  absl::StatusOr<int64_t> RegisterNode(const v1::RegisterNodeRequest& request, int64_t now_ms, bool joins);
  absl::StatusOr<v1::HeartbeatResponse> Heartbeat(const v1::HeartbeatRequest& request, int64_t now_ms);
  absl::Status Tick(int64_t now_ms, bool flush_progress);

 private:
  using NodeRecord = NodeTable::NodeRecord;
  using JobRuntime = JobTable::Runtime;

  // A node's report (heartbeat): its exits applied, its processes
  // recorded, the launches it shows confirmed, processes of no lease here
  // ordered to stop, and leases whose processes it no longer shows (nor
  // their exits) taken as gone.
  void ApplyReport(NodeRecord& node, const v1::HeartbeatRequest& request, Batch& batch, int64_t now_ms);
  // The job when `epoch` is its current lease's, else null.
  const v1::Job* CurrentLeaseOf(const std::string& job_id, int64_t epoch) const;
  // The node has (or had) a rank of this lease: only then may it report on it.
  bool NodeHoldsLease(const NodeRecord& node, const std::string& job_id, int64_t epoch) const;
  void HandleExit(const std::string& node, const v1::ProcessExit& exit, Batch& batch, int64_t now_ms);
  // ApplyReport's parts: the exits a node reports (only of leases it holds
  // a rank of); the processes it reports running or queued (launches
  // confirmed; true where one is of no lease it holds, which is stopped);
  // ids of processes gone released, and leases whose process vanished
  // without an exit ended as stopped by the node.
  void ApplyReportedExits(NodeRecord& n, const v1::HeartbeatRequest& request, Batch& batch, int64_t now_ms);
  bool ApplyReportedProcesses(NodeRecord& n, const v1::HeartbeatRequest& request, Batch& batch, int64_t now_ms);
  void EndVanished(NodeRecord& n, const std::string& node, Batch& batch, int64_t now_ms);
  // RegisterNode's parts: the processes a registering node reports are
  // adopted where their lease is current (and their ids held), else
  // stopped (the count returned); the registration said in the log, with
  // GPU types the zoo has no speed for.
  int AdoptReported(const v1::RegisterNodeRequest& request, NodeRecord& n, Batch& batch, int64_t now_ms);
  void SayRegistered(const v1::RegisterNodeRequest& request, bool known) const;
  // Tick's parts: after a restart, leases whose nodes did not report them
  // by their deadline end and their jobs are requeued; ending leases get
  // their stop once the grace has passed, lowered memory limits, and the
  // exits of ranks on nodes that never came back after a restart.
  void RequeueUnadopted(Batch& batch, int64_t now_ms);
  void PressEndingLeases(Batch& batch, int64_t now_ms);
  // HandleExit's cases: a rank of a lease that is ending exited (`how`: the
  // exit in words); a rank of the current lease crashed; a rank of the
  // current lease exited 0 or was stopped by its node.
  void ExitOfEndingLease(EndingLease& end, v1::Job& job, const std::string& node, const v1::ProcessExit& e,
                         const std::string& how, Batch& batch, int64_t now_ms);
  void CrashOfCurrentLease(v1::Job& job, LeaseTable::Launch& launch, const std::string& node, const v1::ProcessExit& e,
                           const std::string& how, Batch& batch, int64_t now_ms);
  void EndOfCurrentLease(v1::Job& job, LeaseTable::Launch& launch, const std::string& node, const v1::ProcessExit& e,
                         const std::string& how, Batch& batch, int64_t now_ms);
  void LoseNode(NodeRecord& node, Batch& batch, int64_t now_ms);
  // The node is shutting down: its leases end (once), and it is let go
  // when it has no process left.
  void Leave(NodeRecord& node, Batch& batch, int64_t now_ms);

  // Launches (launch_orders.cc).
  // The launch orders for the reply to `node`'s heartbeat: its current
  // leases whose process its report does not show, ordered for the first
  // time once their ids are free there, else again; a lease ordered
  // kLaunchOrdersBeforeRequeue times without a report of its process ends
  // (LeaseEndCause::kNotStarted) and its job waits for the next round.
  std::vector<v1::LaunchOrder> LaunchesFor(NodeRecord& node, Batch& batch, int64_t now_ms);
  v1::LaunchOrder LaunchOrderFor(const v1::Job& job, const v1::LeaseSlice& slice) const;
  // The leases of `jobs` ordered kLaunchOrdersBeforeRequeue times on `node`
  // without a report of their process end (kNotStarted).
  void WithdrawNeverStarted(const std::string& node, const std::vector<std::string>& jobs, Batch& batch,
                            int64_t now_ms);
  // `node` reported the process of `job`'s current lease (running, or its
  // exit): the lease is launched there; the first node's report starts
  // its time held (and the job's first launch). Attempts count orders.
  void ConfirmLaunch(v1::Job& job, const std::string& node, Batch& batch, int64_t now_ms);

  DaemonState& state_;
};

}  // namespace synergy::daemon
