#pragma once
// synergyd's brain, without threads, sockets or clocks: every method takes
// the time it runs at, so tests drive it deterministically and the gRPC
// layer (services.cc) only translates and locks.
//
// Jobs live as v1::Job records, persisted through Store before a change is
// acknowledged. A round (RunRound) asks the core for a plan and diffs it
// against the leases: a lease whose allocation the plan keeps is kept; one
// the plan drops or changes ends (the agent checkpoints and exits; plain
// processes get SIGTERM, then SIGKILL after the grace period); a job the
// plan places without a lease is granted one with a new epoch. GPU and CPU
// ids come from each node's free ids, and a launch waits until the node
// reports that no process still holds them, so a job never runs twice at
// once and two jobs never share a GPU. Nodes learn their orders in
// heartbeat replies.
//
// The implementation is split by concern: daemon_state.cc (open, persist,
// client API), daemon_nodes.cc, daemon_agents.cc, daemon_round.cc,
// daemon_leases.cc and daemon_profiling.cc.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/authenticator.h"
#include "daemon/config.h"
#include "daemon/store.h"
#include "synergy/mechanism.h"
#include "synergy/model_zoo.h"
#include "synergy/policy.h"
#include "synergy/round.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

// Counters behind /metrics.
struct DaemonCounters {
  int64_t rounds = 0;
  double last_round_ms = 0;
  int64_t leases_granted = 0;
  int64_t leases_ended = 0;
  int64_t leases_kept = 0;
  int64_t jobs_submitted = 0;
  int64_t jobs_requeued = 0;
};

class DaemonState {
 public:
  // Loads every job from `store` (after a restart: leases that were running
  // wait heartbeat_timeout_s for their node to report them, then requeue).
  static absl::StatusOr<std::unique_ptr<DaemonState>> Open(const DaemonConfig& config,
                                                           std::unique_ptr<Store> store,
                                                           ModelZoo zoo, int64_t now_ms);

  // ---- client API (errors: INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION,
  // UNAVAILABLE when the store fails; nothing changes on error)
  // `owner`: the user the caller's credential names (Job.owner).
  absl::StatusOr<std::string> Submit(const v1::JobSpec& spec, const std::string& owner, int64_t now_ms);
  // Jobs of `owner` that have not ended.
  int ActiveJobsOf(const std::string& owner) const;
  absl::StatusOr<v1::Job> Cancel(const std::string& job_id, int64_t now_ms);
  absl::StatusOr<v1::Job> GetJob(const std::string& job_id) const;  // with events
  // Who submitted it (no store read); NOT_FOUND when there is no such job.
  absl::StatusOr<std::string> OwnerOf(const std::string& job_id) const;
  std::vector<v1::Job> ListJobs(const std::set<int>& states) const;
  std::vector<v1::Node> ListNodes(int64_t now_ms) const;
  v1::ClusterState Cluster() const;
  absl::StatusOr<v1::Node> SetDrained(const std::string& node, bool drained, int64_t now_ms);

  // ---- node API
  // A node that registered with a join credential (durable): it holds a
  // credential of its own from then on, and the name cannot join again.
  bool NodeJoined(const std::string& name) const { return joined_nodes_.count(name) > 0; }
  absl::Status RecordJoin(const std::string& name, int64_t now_ms);
  int64_t RegisterNode(const v1::RegisterNodeRequest& request, int64_t now_ms);
  v1::HeartbeatResponse Heartbeat(const v1::HeartbeatRequest& request, int64_t now_ms);

  // ---- agent API (a stale epoch is FAILED_PRECONDITION)
  absl::StatusOr<v1::AgentWelcome> RegisterAgent(const v1::AgentHello& hello, int64_t now_ms);
  absl::StatusOr<v1::ProgressReply> ReportProgress(const v1::ProgressReport& report, int64_t now_ms);
  absl::Status ConfirmCheckpoint(const v1::CheckpointDone& done, int64_t now_ms);
  // Stores the matrix the agent measured (durable before it returns).
  // Scheduling with it is the profiler's issue; until then the job keeps
  // its zoo model's profile.
  absl::Status SubmitProfile(const v1::MeasuredProfile& profile, int64_t now_ms);

  // ---- time
  // A scheduling round now.
  void RunRound(int64_t now_ms);
  // Housekeeping between rounds: lost nodes, unadopted leases, overdue
  // lease ends, progress flushed to the store.
  void Tick(int64_t now_ms);

  const DaemonCounters& counters() const { return counters_; }
  const DaemonConfig& config() const { return config_; }
  // Credentials, with the key kept in the state database (made on first
  // start: a lease's credential stays valid across restarts).
  const Authenticator& authenticator() const { return *authenticator_; }
  // The round input the next round would see (tests: the daemon and the
  // simulator must plan it identically).
  struct RoundSnapshot {
    std::vector<std::string> node_names;
    synergy::Cluster cluster;
    std::vector<JobView> views;  // queue order
    std::deque<ModelSpec> measured;  // models built from measured profiles (views point here)
  };
  RoundSnapshot SnapshotForRound(int64_t now_ms) const;

 private:
  struct NodeRecord {
    v1::Node info;
    std::set<std::pair<std::string, int64_t>> processes;  // (job, epoch) the node reports
    // Ids held by launched processes until their exit is reported.
    std::map<std::pair<std::string, int64_t>, std::pair<std::vector<int>, std::vector<int>>> held;
    bool unknown_processes = false;  // processes of leases we cannot place: launches wait
    std::vector<v1::StopOrder> stops;  // to send with the next heartbeat
  };
  struct EndingLease {
    v1::Lease lease;
    int64_t since_ms = 0;
    bool stop_sent = false;
    std::set<std::string> exited;  // nodes whose rank has exited
    int64_t stop_at = 0;           // rank 0's choice of the last iteration
    // Ended after a daemon restart before its nodes reported it: a node
    // that has not registered again by then is taken to have lost it.
    int64_t unadopted_until_ms = 0;
  };
  struct JobRuntime {
    std::set<std::string> launched_on;  // nodes the current lease's launch went to
    std::set<std::string> exited_on;
    int64_t adopt_deadline_ms = 0;      // after a restart: 0 = adopted or new
    bool finished = false;              // the agent confirmed its last iteration
    std::map<int64_t, EndingLease> ending;  // by epoch
    int64_t last_accounted_ms = 0;
    bool stopping = false;              // cancelled or failed: stop orders out
    bool profile_wait_told = false;     // its event says it runs unprofiled for now
    // Its current lease has (or, after a restart, may have) processes.
    bool launched() const { return !launched_on.empty() || adopt_deadline_ms > 0; }
  };

  // The store's counters that survive a restart.
  static constexpr const char* kNextJobCounter = "next_job";
  static constexpr const char* kNextEpochCounter = "next_epoch";
  static constexpr const char* kCredentialKeySecret = "credential_key";

  DaemonState(const DaemonConfig& config, std::unique_ptr<Store> store, ModelZoo zoo);

  absl::Status Persist(Batch batch);
  // Jobs whose progress changed since the last commit, added to `batch`.
  void AddDirtyJobs(Batch& batch) const;
  void Record(Batch& batch, v1::Job& job, const std::string& text, int64_t now_ms);
  void SetState(v1::Job& job, v1::JobState state, const std::string& reason, int64_t now_ms);
  bool Terminal(const v1::Job& job) const;

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
  void Grant(v1::Job& job, const Assignment& assignment, const std::vector<std::string>& node_names,
             Batch& batch, int64_t now_ms);
  void EndLease(v1::Job& job, const std::string& why, Batch& batch, int64_t now_ms);
  // Forgets the current lease (its processes are gone or never started);
  // a launched one counts as the job's last run.
  void DropLease(v1::Job& job, JobRuntime& rt, int64_t now_ms);
  void SendStop(const std::string& node, const std::string& job, int64_t epoch, int64_t grace_ms);
  // The node has (or had) a rank of this lease: only then may it report on it.
  bool NodeHoldsLease(const NodeRecord& node, const std::string& job_id, int64_t epoch) const;
  void HandleExit(const std::string& node, const v1::ProcessExit& exit, Batch& batch, int64_t now_ms);
  void LoseNode(NodeRecord& node, Batch& batch, int64_t now_ms);
  void AccountService(int64_t now_ms);
  std::vector<v1::LaunchOrder> LaunchesFor(NodeRecord& node, Batch& batch, int64_t now_ms);
  int MaxJobGpus() const;
  int MaxRetries(const v1::Job& job) const;

  DaemonConfig config_;
  std::unique_ptr<Store> store_;
  ModelZoo zoo_;
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<Mechanism> mechanism_;
  std::map<std::string, v1::Job> jobs_;
  std::map<std::string, JobRuntime> runtime_;
  std::vector<std::string> queue_order_;  // the order the last round left
  std::map<std::string, NodeRecord> nodes_;
  std::map<std::string, bool> drained_;
  std::map<std::string, int64_t> joined_nodes_;
  std::unique_ptr<Authenticator> authenticator_;
  std::set<std::string> dirty_;  // progress not yet in the store
  int64_t next_job_ = 1;
  int64_t next_epoch_ = 1;
  int64_t round_ = 0;
  DaemonCounters counters_;
};

}  // namespace synergy::daemon
