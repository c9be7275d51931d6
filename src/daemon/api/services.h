#pragma once
// The gRPC face of DaemonState: three synchronous services that take the
// state's lock, authenticate the caller and check the method's access rule
// (daemon/api/access_rules.h) and the request's own (a node speaks for itself,
// a user cancels and reads in full only its own jobs, an agent acts only
// under its lease's credential), call the state, and translate absl::Status
// to grpc::Status. No scheduling logic lives here.
//
// Codes: UNAUTHENTICATED when the credential is missing or matches nobody,
// PERMISSION_DENIED when it belongs to a principal that may not do this.
#include <functional>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "daemon/state/daemon_state.h"
#include "daemon/nodes/log_relay.h"
#include "synergy/v1/synergy.grpc.pb.h"

namespace synergy::daemon {

// The daemon's state behind its lock: every RPC, the round loop and
// /metrics take `mu` before they touch `state`; reads (GetJob, ListJobs,
// ListNodes, GetClusterState, /metrics) share it, changes hold it alone.
// Three calls run without it by contract, each said where it is made:
// the round's planning (DaemonState::PlanRound reads only what Open set),
// and the store waits of a submission and of a progress flush (they wait
// on the group commit's queue, whose place was taken under `mu`). Agents'
// credentials are checked before it (the authenticator does not change
// after the state opens).
//
// Lock order: `mu` (the state), then ProgressBoard's (the state publishes
// leases and folds reports under `mu`; agents' reports take the board's
// alone), then GroupCommit's (commits are queued under either). Each of
// the two inner locks is held only inside its own class's methods, which
// never call out (ABSL_LOCKS_EXCLUDED on each), so no cycle can form;
// LogRelay's and the server's locks are taken alone.
struct Guarded {
  absl::Mutex mu;
  DaemonState* state ABSL_PT_GUARDED_BY(mu) = nullptr;
  const Authenticator* authenticator = nullptr;  // the state's; set once, before serving
  ProgressBoard* board = nullptr;                // the state's; thread-safe
  LogRelay* logs = nullptr;                      // the daemon's; thread-safe
  // Whether another synergyd has taken the shared state over (the store's
  // fencing; thread-safe, read without mu): set once, before serving.
  std::function<bool()> fenced = [] { return false; };
};

class SchedulerServiceImpl final : public v1::SchedulerService::Service {
 public:
  explicit SchedulerServiceImpl(Guarded& g) : g_(g) {}
  grpc::Status SubmitJob(grpc::ServerContext*, const v1::SubmitJobRequest*, v1::SubmitJobResponse*) override;
  grpc::Status CancelJob(grpc::ServerContext*, const v1::CancelJobRequest*, v1::CancelJobResponse*) override;
  grpc::Status GetJob(grpc::ServerContext*, const v1::GetJobRequest*, v1::Job*) override;
  grpc::Status ListJobs(grpc::ServerContext*, const v1::ListJobsRequest*, v1::ListJobsResponse*) override;
  grpc::Status ListNodes(grpc::ServerContext*, const v1::ListNodesRequest*, v1::ListNodesResponse*) override;
  grpc::Status GetClusterState(grpc::ServerContext*, const v1::ClusterStateRequest*, v1::ClusterState*) override;
  grpc::Status DrainNode(grpc::ServerContext*, const v1::DrainNodeRequest*, v1::DrainNodeResponse*) override;
  grpc::Status UndrainNode(grpc::ServerContext*, const v1::DrainNodeRequest*, v1::DrainNodeResponse*) override;
  // The job's owner or an admin; an admin's hold is released by an admin
  // only, and only an admin raises a priority (DaemonState says which).
  grpc::Status HoldJob(grpc::ServerContext*, const v1::JobActionRequest*, v1::JobActionResponse*) override;
  grpc::Status ReleaseJob(grpc::ServerContext*, const v1::JobActionRequest*, v1::JobActionResponse*) override;
  grpc::Status RequeueJob(grpc::ServerContext*, const v1::JobActionRequest*, v1::JobActionResponse*) override;
  grpc::Status UpdateJob(grpc::ServerContext*, const v1::UpdateJobRequest*, v1::JobActionResponse*) override;
  // The owner's or an admin's: read from the node that ran the lease
  // (LogRelay), waiting without the state's lock.
  grpc::Status GetJobLogs(grpc::ServerContext*, const v1::JobLogsRequest*, v1::JobLogs*) override;

 private:
  Guarded& g_;
};

class NodeServiceImpl final : public v1::NodeService::Service {
 public:
  explicit NodeServiceImpl(Guarded& g) : g_(g) {}
  grpc::Status RegisterNode(grpc::ServerContext*, const v1::RegisterNodeRequest*, v1::RegisterNodeResponse*) override;
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest*, v1::HeartbeatResponse*) override;
  // A node's answer to a LogRequest its heartbeat carried.
  grpc::Status ReturnLogs(grpc::ServerContext*, const v1::LogChunk*, v1::LogChunkAck*) override;

 private:
  Guarded& g_;
};

// Agents are authorised by their lease's credential (minted for the job id
// and epoch the request names); a stale or unknown lease is refused with
// FAILED_PRECONDITION. The credential and the request are checked before
// the state's lock is taken: neither needs the state.
//
// ReportProgress, 10,000 calls a second at 10,000 agents, runs on gRPC's
// callback API (no hand-off from a polling thread to a worker thread for
// each call); a report under an open lease takes only the progress board's
// lock (progress_board.h). The rest, rare, are synchronous.
class AgentServiceImpl final : public v1::AgentService::WithCallbackMethod_ReportProgress<v1::AgentService::Service> {
 public:
  explicit AgentServiceImpl(Guarded& g) : g_(g) {}
  grpc::Status RegisterAgent(grpc::ServerContext*, const v1::AgentHello*, v1::AgentWelcome*) override;
  grpc::ServerUnaryReactor* ReportProgress(grpc::CallbackServerContext*, const v1::ProgressReport*,
                                           v1::ProgressReply*) override;
  grpc::Status ConfirmCheckpoint(grpc::ServerContext*, const v1::CheckpointDone*, v1::CheckpointAck*) override;
  grpc::Status SubmitProfile(grpc::ServerContext*, const v1::MeasuredProfile*, v1::ProfileAck*) override;

 private:
  grpc::Status Progress(grpc::CallbackServerContext*, const v1::ProgressReport*, v1::ProgressReply*);
  Guarded& g_;
};

grpc::Status ToGrpc(const absl::Status& status);

}  // namespace synergy::daemon
