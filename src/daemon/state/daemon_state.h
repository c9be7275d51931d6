#pragma once
// synergyd's brain, without threads, sockets or clocks: every method takes
// the time it runs at, so tests drive it deterministically and the gRPC
// layer (services.cc) only translates and locks.
//
// Jobs live as v1::Job records. Every change (an RPC, a round, a tick) is
// one Change: it edits the state through journaled maps and collects what
// must be stored in a Batch; only when the store has committed the batch
// does the change stay and is anything sent (a reply, a launch or stop
// order in a heartbeat reply). A failed commit undoes the change, is
// logged once while the store keeps failing, and answers UNAVAILABLE: the
// caller retries (nodes keep their unacknowledged exits, the round loop
// plans again), and the epoch counter never goes back past what a node or
// agent was told. A round (RunRound) asks the core for a plan and diffs it
// against the leases: a lease whose allocation the plan keeps is kept; one
// the plan drops or changes ends (the agent checkpoints and exits; plain
// processes get SIGTERM, then SIGKILL after the grace period); a job the
// plan places without a lease is granted one with a new epoch. GPU and CPU
// ids come from each node's free ids, and a launch waits until the node
// reports that no process still holds them, so a job never runs twice at
// once and two jobs never share a GPU. Nodes learn their orders in
// heartbeat replies.
//
// Facts and their owners: jobs (records, runtimes, queue order, ids,
// unstored progress) in jobs_ (job_table.h); nodes (records, drains, joins)
// in nodes_ (node_table.h); epochs, ending leases, the leases and ids on
// each node, and stop orders in leases_ (lease_table.h).
//
// DaemonState is the facade of four owners of transitions, one folder a
// concern (docs/architecture.md): ClientGateway (api/client_gateway.h:
// submit, cancel, read, list, drain, hold, release, requeue, priority),
// NodeGateway (nodes/node_gateway.h: registration, heartbeats, launch
// orders, process exits, node loss, the tick), AgentGateway
// (agents/agent_gateway.h: an agent's registration, progress, checkpoints
// and profile) and RoundDriver (round/round_driver.h: prepare, plan,
// apply). Its public methods are theirs. What it keeps is what they share:
// the tables, the store and a Change and its commit (daemon_state.cc); and
// it holds LeaseActions (round/lease_actions.h), what every one of them
// does to leases (grant, end, drop, stop, resize, profiling leases).
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/api/authenticator.h"
#include "daemon/server/config.h"
#include "daemon/state/dependencies.h"
#include "daemon/state/group_commit.h"
#include "daemon/state/job_lifecycle.h"
#include "daemon/state/job_table.h"
#include "daemon/state/journaled_map.h"
#include "daemon/state/lease_table.h"
#include "daemon/state/node_table.h"
#include "daemon/agents/progress_board.h"
#include "daemon/round/round_planner.h"
#include "daemon/state/store.h"
#include "service/metrics_text.h"
#include "synergy/between_rounds.h"
#include "synergy/mechanism.h"
#include "synergy/model_zoo.h"
#include "synergy/policy.h"
#include "synergy/round.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

// Why a lease ended (/metrics counts them by cause).
enum class LeaseEndCause {
  kRound,        // a round's plan moved or shrank it, or it was marked ending
  kProfiled,     // its profile is measured
  kCancelled,
  kFinished,     // withdrawn unlaunched: the job finished under an older lease
  kExited,       // every rank exited (done, stopped, or after the lease ended)
  kCrashed,      // a rank exited with an error
  kNodeLeaving,
  kNodeLost,
  kNotReadopted,  // its node did not report it after a daemon restart
  kHeld,          // HoldJob
  kRequeued,      // RequeueJob
  kNotStarted,    // its node's reports never showed the process its orders asked for
  kTimedOut,      // the job ran for its time limit
};
inline constexpr int kLeaseEndCauses = static_cast<int>(LeaseEndCause::kTimedOut) + 1;
const char* LeaseEndCauseName(LeaseEndCause cause);

// Counters and distributions behind /metrics, since this daemon started.
// Guarded by the daemon's lock like the rest of its state.
struct DaemonCounters {
  int64_t rounds = 0;
  double last_round_ms = 0;
  int64_t leases_granted = 0;
  std::array<int64_t, kLeaseEndCauses> leases_ended_by_cause{};
  int64_t LeasesEnded() const {
    int64_t sum = 0;
    for (int64_t n : leases_ended_by_cause) sum += n;
    return sum;
  }
  int64_t leases_kept = 0;
  int64_t leases_resized = 0;  // amended in place (CPUs or memory), no restart
  // Launches between rounds: tries made, and leases they granted.
  int64_t launch_tries = 0;
  int64_t launches_between_rounds = 0;
  double last_plan_ms = 0;  // of which planning, without the lock
  int64_t jobs_submitted = 0;
  int64_t jobs_requeued = 0;
  int64_t store_failures = 0;  // commits the store refused (each undone)
  // GPU-seconds held by each tenant ("" for jobs of none) since start.
  std::map<std::string, double> tenant_gpu_seconds;
  // Submission to first launch (profiling included), submission to
  // success, and a round's decide-and-apply time, in seconds.
  service::Histogram queue_wait_s{service::ExponentialBounds(1, 4, 11)};
  service::Histogram completion_s{service::ExponentialBounds(1, 4, 11)};
  service::Histogram round_decision_s{service::ExponentialBounds(0.0005, 4, 9)};
};

class AgentGateway;
class ClientGateway;
class LeaseActions;
class NodeGateway;
class RoundDriver;

class DaemonState {
 public:
  // Loads every job from `store` (after a restart: leases that were running
  // wait heartbeat_timeout_s for their node to report them, then requeue).
  static absl::StatusOr<std::unique_ptr<DaemonState>> Open(const DaemonConfig& config,
                                                           std::unique_ptr<Store> store,
                                                           ModelZoo zoo, int64_t now_ms);
  ~DaemonState();

  // ---- client API (errors: INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION,
  // UNAVAILABLE when the store fails; nothing changes on error)
  // `owner`: the user the caller's credential names (Job.owner).
  absl::StatusOr<std::string> Submit(const v1::JobSpec& spec, const std::string& owner, int64_t now_ms);
  // Submit in three steps, so that submissions share fsyncs (group_commit.h):
  // PrepareSubmit validates and takes an id (under the daemon's lock),
  // StoreSubmission waits for the store (without it; thread-safe), and
  // FinishSubmit (under the lock again) makes the job known once stored.
  // A refused submission leaves its ids unused. An array's submission is
  // one job per index, stored in one commit (all or none).
  struct PreparedSubmit {
    std::vector<v1::Job> jobs;
    Batch batch;
  };
  absl::StatusOr<PreparedSubmit> PrepareSubmit(const v1::JobSpec& spec, const std::string& owner, int64_t now_ms);
  absl::Status StoreSubmission(const PreparedSubmit& prepared);
  absl::StatusOr<std::string> FinishSubmit(PreparedSubmit prepared, const absl::Status& stored);
  // Jobs of `owner` that have not ended.
  int ActiveJobsOf(const std::string& owner) const;
  absl::StatusOr<v1::Job> Cancel(const std::string& job_id, int64_t now_ms);
  // With events; a job retired into the history table without them.
  absl::StatusOr<v1::Job> GetJob(const std::string& job_id) const;
  // Where the output of `job_id`'s lease `epoch` (0: its latest), rank
  // `rank`, is: NOT_FOUND for an unknown job or a lease it never had (or
  // one older than the kMaxLeaseNodes it remembers), UNAVAILABLE when that
  // node is not connected (the output stays in its log_dir).
  struct LogSource {
    std::string node;
    int64_t epoch = 0;
    int64_t latest_epoch = 0;
    int64_t next_epoch = 0;  // the lease after `epoch`, 0 if none
    bool job_ended = false;
  };
  absl::StatusOr<LogSource> LogSourceOf(const std::string& job_id, int64_t epoch, int rank) const;
  // Who submitted it (no store read); NOT_FOUND when there is no such job.
  absl::StatusOr<std::string> OwnerOf(const std::string& job_id) const;
  // The id a name of a job stands for: "j-000100_3" is the job of index 3
  // of array j-000100 (service/job_arrays.h); any other name, or one whose
  // array or index is not known, as it is (so a read of it says "no such
  // job" with the name the user gave).
  std::string ResolveJobName(const std::string& name) const;
  // A page of job summaries as ListJobsRequest says (api/job_listing.cc):
  // the jobs in the table and, with include_retired, those in the store's
  // history, merged in id order.
  struct JobPage {
    std::vector<v1::Job> jobs;
    std::string next_page_token;  // "" = the last page
  };
  absl::StatusOr<JobPage> ListJobs(const v1::ListJobsRequest& request) const;
  std::vector<v1::Node> ListNodes(int64_t now_ms) const;
  v1::ClusterState Cluster() const;
  // Drains (no new leases; its jobs' leases end at the next round) or
  // undrains a node; a drain keeps `reason` and the time, shown with the
  // node. Draining a drained node replaces the reason, keeping the time.
  absl::StatusOr<v1::Node> SetDrained(const std::string& node, bool drained, int64_t now_ms,
                                      const std::string& reason = "");
  // Held jobs get no lease until released; a lease the job holds ends
  // (agents checkpoint). `by`: who holds it; an admin's hold is released
  // only by an admin (PERMISSION_DENIED otherwise). FAILED_PRECONDITION
  // when the job has ended or is already held (Hold) or not held (Release).
  absl::StatusOr<v1::Job> Hold(const std::string& job_id, const std::string& by, bool by_admin, int64_t now_ms);
  absl::StatusOr<v1::Job> Release(const std::string& job_id, const std::string& by, bool by_admin, int64_t now_ms);
  // A running or profiling job's lease ends (agents checkpoint) and it
  // waits for a round again; FAILED_PRECONDITION when it holds no lease.
  absl::StatusOr<v1::Job> Requeue(const std::string& job_id, const std::string& by, int64_t now_ms);
  // Its priority class (spec.priority) from now on; `may_raise` false (its
  // owner): PERMISSION_DENIED above the current one. FAILED_PRECONDITION
  // when the job has ended.
  absl::StatusOr<v1::Job> SetPriority(const std::string& job_id, int priority, const std::string& by, bool may_raise,
                                      int64_t now_ms);

  // Launch orders a lease gets without a report of its process before it
  // ends (LaunchesFor): a lost reply costs one heartbeat, not the lease.
  static constexpr int kLaunchOrdersBeforeRequeue = 10;

  // ---- node API
  // A node that registered with a join credential (durable): it holds a
  // credential of its own from then on, and the name cannot join again.
  bool NodeJoined(const std::string& name) const { return nodes_.Joined(name); }
  // The heartbeat interval the node is to keep. `joins`: it registers with
  // a join credential; the join is stored in the same commit as the
  // registration, so a node is never left joined without its credential.
  absl::StatusOr<int64_t> RegisterNode(const v1::RegisterNodeRequest& request, int64_t now_ms,
                                       bool joins = false);
  absl::StatusOr<v1::HeartbeatResponse> Heartbeat(const v1::HeartbeatRequest& request, int64_t now_ms);

  // ---- agent API (a stale epoch is FAILED_PRECONDITION)
  absl::StatusOr<v1::AgentWelcome> RegisterAgent(const v1::AgentHello& hello, int64_t now_ms);
  absl::StatusOr<v1::ProgressReply> ReportProgress(const v1::ProgressReport& report, int64_t now_ms);
  absl::Status ConfirmCheckpoint(const v1::CheckpointDone& done, int64_t now_ms);
  // Stores the matrix the agent measured (durable before it returns).
  // Scheduling with it is the profiler's issue; until then the job keeps
  // its zoo model's profile.
  absl::Status SubmitProfile(const v1::MeasuredProfile& profile, int64_t now_ms);

  // ---- time
  // A scheduling round now (UNAVAILABLE: its commit failed and it changed
  // nothing; the next round plans again).
  absl::Status RunRound(int64_t now_ms);
  // Housekeeping between rounds: lost nodes, unadopted leases, overdue
  // lease ends, and (with `flush_progress`, when due) FlushProgress.
  absl::Status Tick(int64_t now_ms, bool flush_progress = true);
  // Stores the progress agents reported since the last flush (every
  // kProgressFlushMs; a clean shutdown calls it).
  absl::Status FlushProgress(int64_t now_ms);
  // The same in three steps, so that the store is waited for without the
  // lock (10,000 jobs' records take a tenth of a second to store):
  // StartProgressFlush (under the lock) counts service to now, copies each
  // job whose progress changed and takes the batch's place in the store's
  // queue, so no later change is stored before it; StoreProgress (without
  // it) waits for the store; FinishProgressFlush (under it) forgets what
  // was stored, unless the job's progress changed again meanwhile. A
  // refused flush keeps everything for the next one.
  struct ProgressFlush {
    int64_t now_ms = 0;
    std::unique_ptr<Batch> batch;           // stays put: the queue points at it
    std::map<std::string, uint64_t> marks;  // each job's dirty mark when copied
    GroupCommit::Ticket ticket;
  };
  bool ProgressFlushDue(int64_t now_ms) const { return now_ms - last_progress_flush_ms_ >= kProgressFlushMs; }
  ProgressFlush StartProgressFlush(int64_t now_ms);
  absl::Status StoreProgress(ProgressFlush& flush);
  absl::Status FinishProgressFlush(const ProgressFlush& flush, const absl::Status& stored);

  const DaemonCounters& counters() const { return counters_; }
  // Changes the store has refused since it last took one (0: it takes
  // writes). Safe without the daemon's lock (/readyz).
  int64_t store_refusing() const { return failing_commits_.load(); }
  const DaemonConfig& config() const { return config_; }
  // Credentials, with the key kept in the state database (made on first
  // start: a lease's credential stays valid across restarts).
  const Authenticator& authenticator() const { return *authenticator_; }
  // Another daemon took the state over (Store::fenced): this one steps down.
  bool store_fenced() const { return store_->fenced(); }
  // Where the store is shared by a leader and standbys: this daemon's
  // leadership (Store::leadership; fixed once open).
  std::optional<Store::Leadership> store_leadership() const { return store_->leadership(); }
  // Where agents report progress under open leases without the daemon's
  // lock (progress_board.h; thread-safe). The daemon publishes each job's
  // lease there after every stored change that touched it, and folds the
  // reports into the jobs' records before it reads them (ticks, rounds,
  // flushes, heartbeats, checkpoints, and reports it answers itself).
  ProgressBoard& progress_board() { return board_; }
  // A round in three steps, so that the core plans without the daemon's
  // lock (round_planner.h): PrepareRound (under the lock) lends nodes for
  // profiling and copies what the round reads; PlanRound (without it: it
  // reads only what Open set) plans; ApplyRound (under it) grants, keeps
  // and ends leases as planned, skipping jobs and nodes that changed since
  // PrepareRound (the next round sees them). RunRound is the three in a row.
  // Errors: UNAVAILABLE when a commit failed (nothing of it changed).
  absl::StatusOr<RoundWorld> PrepareRound(int64_t now_ms);
  RoundDecisions PlanRound(const RoundWorld& world) const;
  // `now_ms`: when it applies (events, lease ends and service are counted
  // to it; the decisions were made at world.now_ms).
  absl::Status ApplyRound(const RoundWorld& world, const RoundDecisions& decisions, int64_t now_ms);

  // Launches between rounds (synergy/between_rounds.h; launch_between_rounds
  // in the config): a try is due once an event (a lease's processes gone,
  // a job submitted or released, a node registered or undrained, a lease
  // shrunk) is launch_debounce_ms old. A try in three steps, as a round:
  // PrepareLaunch (under the lock) copies what it reads and counts the
  // events so far as tried; PlanLaunches (without it) places the waiting
  // jobs around every held lease (round_planner.h); ApplyLaunches (under
  // it) grants what still applies and queues the jobs left waiting, with
  // why. No held lease is touched. LaunchBetweenRounds: the three in a row.
  bool LaunchDue(int64_t now_ms) const { return config_.launch_between_rounds && launch_trigger_.Due(now_ms); }
  absl::StatusOr<RoundWorld> PrepareLaunch(int64_t now_ms);
  RoundDecisions PlanLaunches(const RoundWorld& world) const;
  absl::Status ApplyLaunches(const RoundWorld& world, const RoundDecisions& decisions, int64_t now_ms);
  absl::Status LaunchBetweenRounds(int64_t now_ms);
  // When the next round is due (wall clock; 0: not known), as the round
  // loop says: a waiting job's reason counts down to it when it is read.
  void SetNextRoundDue(int64_t unix_ms) { next_round_unix_ms_ = unix_ms; }
  int64_t next_round_unix_ms() const { return next_round_unix_ms_; }

  // The round input the next round would see (tests: the daemon and the
  // simulator must plan it identically). `pinned`: jobs whose leases the
  // round keeps as they are; it plans the others on what those leave.
  RoundSnapshot SnapshotForRound(int64_t now_ms, const std::set<std::string>& pinned = {}) const;

 private:
  // The gateways that own the RPCs' transitions (api/client_gateway.h,
  // nodes/node_gateway.h, agents/agent_gateway.h) and the round driver
  // (round/round_driver.h) act through the tables and changes below, and
  // through the lease actions they share (round/lease_actions.h).
  friend class AgentGateway;
  friend class ClientGateway;
  friend class LeaseActions;
  friend class NodeGateway;
  friend class RoundDriver;
  using NodeRecord = NodeTable::NodeRecord;
  using JobRuntime = JobTable::Runtime;

  // The store's counters that survive a restart.
  static constexpr const char* kNextJobCounter = "next_job";
  static constexpr const char* kNextEpochCounter = "next_epoch";
  static constexpr const char* kCredentialKeySecret = "credential_key";
  static constexpr int kOptSafetyNetMs = 2000;
  static constexpr int64_t kProgressFlushMs = 10000;

  // One change to the state (see the top of this file). A change that is
  // not committed is undone when it goes out of scope, so an early return
  // on error leaves nothing behind.
  class Change {
   public:
    explicit Change(DaemonState& state);
    ~Change();
    Change(const Change&) = delete;
    Change& operator=(const Change&) = delete;
    // Stores `batch`; OK keeps the change, an error undoes it.
    absl::Status Commit(Batch batch);

   private:
    void Undo();
    DaemonState& state_;
    int64_t round_;
    bool awaiting_adoption_;
    DaemonCounters counters_;
    bool closed_ = false;
  };

  DaemonState(const DaemonConfig& config, std::unique_ptr<Store> store, ModelZoo zoo);

  // The store's commit, with failures counted and logged once per episode.
  absl::Status CommitToStore(const Batch& batch);
  // What a commit's outcome means for the daemon: failures counted and
  // logged once per episode (UNAVAILABLE), stored events logged.
  absl::Status NoteCommit(const absl::Status& committed, const Batch& batch);
  void Record(Batch& batch, v1::Job& job, const std::string& text, int64_t now_ms);
  // Ended jobs past retain_ended_jobs leave the table into `batch`'s
  // history (at most kMaxRetiredPerTick a tick).
  void RetireEndedJobs(Batch& batch, int64_t now_ms);
  static constexpr int kMaxRetiredPerTick = 1000;
  bool Terminal(const v1::Job& job) const;
  // A job from the table or, retired since, the store's history (one
  // read): NOT_FOUND when neither has it, another error when the store
  // cannot say.
  absl::StatusOr<v1::Job> KnownJob(const std::string& id) const;
  // What one judgement of dependencies (a round's, or a read's) has looked
  // up, so that each job and array is read once.
  struct DependencyLookups {
    std::map<std::string, std::optional<v1::JobState>> states;
    std::map<std::string, std::vector<std::string>> arrays;
  };
  // A job's state by any of its names (an array's job by its index);
  // nullopt when synergyd does not know it; JOB_STATE_UNSPECIFIED when the
  // store cannot say now (a dependency on it waits on).
  std::optional<v1::JobState> KnownJobState(const std::string& name, DependencyLookups* cache = nullptr) const;
  // The jobs of array `id` (its id and the consecutive ones after it),
  // when `id` is an array's; else none.
  std::vector<std::string> ArrayJobsOf(const std::string& id, DependencyLookups* cache = nullptr) const;
  // It names dependencies not yet all met: no round places it (the round
  // driver judges them before each round, state/dependencies.h).
  static bool AwaitsDependencies(const v1::Job& job) {
    return (job.spec().after_ok_size() > 0 || job.spec().after_any_size() > 0) && !job.dependencies_met();
  }
  // `job`'s dependencies judged now (state/dependencies.h).
  DependencyCheck DependenciesOf(const v1::Job& job, DependencyLookups* cache = nullptr) const;
  // Bumped whenever a job ends or one with dependencies is submitted:
  // dependencies can only change outcome then (round/dependency_wait.cc).
  int64_t dependency_generation_ = 0;

  // The job's lease as the board is to show it (open when current, not
  // ending, and the job live).
  void PublishLease(const std::string& id);
  // The reports the board took, into the jobs' records (in memory; stored
  // with the next flush).
  void FoldProgress();
  int MaxRetries(const v1::Job& job) const;
  // Something freed resources or a job can now wait for them: a launch
  // between rounds is tried once the debounce has passed.
  void NoteLaunchEvent(int64_t now_ms) {
    if (config_.launch_between_rounds) launch_trigger_.Note(static_cast<double>(now_ms));
  }

  DaemonConfig config_;
  // Tenants and users as rounds see them (state/tenant_shares.cc):
  // auth.tenants' quotas, by index (the core's TenantQuotas); each
  // tenant's index by name (the configured ones first, then others from
  // their first usage on) and each user's; with fair share, their recent
  // GPU usage.
  TenantQuotas tenant_quotas_;
  std::map<std::string, int> tenant_index_;
  std::map<std::string, int> user_index_;
  std::unique_ptr<DecayedUsage> tenant_usage_;  // null: fair share off
  std::unique_ptr<DecayedUsage> user_usage_;
  int TenantIndexOf(const std::string& tenant) const {
    auto it = tenant_index_.find(tenant);
    return it == tenant_index_.end() ? -1 : it->second;
  }
  int UserIndexOf(const std::string& user) const;
  // `tenant`'s quota when auth.tenants gives it one (gpus > 0); else null.
  const TenantQuota* QuotaOf(const std::string& tenant) const;
  // GPUs each tenant's leases hold now, by name; empty when no tenant has
  // a quota (nothing reads it then).
  std::map<std::string, int> GpusHeldByTenant() const;
  int IndexTenant(const std::string& tenant);
  int IndexUser(const std::string& user);
  // GPU-seconds `job` held up to `at_ms`: its tenant's counter (/metrics)
  // and, with fair share, its tenant's and owner's usage.
  void NoteGpuUsage(const v1::Job& job, double gpu_seconds, int64_t at_ms);
  // The quotas, with fair share's usage at `now_ms` (tenants' over their
  // quotas), for a round.
  TenantQuotas TenantsForRound(int64_t now_ms) const;
  // After loading: the stored jobs' GPU-seconds into fair share's usage.
  void RestoreGpuUsage(int64_t now_ms);
  std::unique_ptr<Store> store_;
  std::unique_ptr<GroupCommit> group_;  // every commit goes through it
  ModelZoo zoo_;
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<Mechanism> mechanism_;
  TypeChoice type_choice_ = TypeChoice::kBestAllocation;
  // Changed only through Edit/Insert, so that a Change can undo them.
  JobTable jobs_;
  NodeTable nodes_;
  std::unique_ptr<Authenticator> authenticator_;
  ProgressBoard board_;
  // Changes the store refused in a row (0: it takes writes): one log line
  // per episode; read without the lock by /readyz.
  std::atomic<int64_t> failing_commits_{0};
  int64_t last_progress_flush_ms_ = 0;
  int64_t next_retirement_ms_ = 0;  // when a tick next looks for jobs to retire
  // Epochs, ending leases, and the leases on each node.
  LeaseTable leases_;
  // After a restart, until every loaded lease is re-adopted or requeued:
  // ticks look for overdue adoptions.
  bool awaiting_adoption_ = false;
  int64_t round_ = 0;
  DaemonCounters counters_;
  LaunchTrigger launch_trigger_;     // in milliseconds
  int64_t next_round_unix_ms_ = 0;
  std::unique_ptr<NodeGateway> node_gateway_;  // RegisterNode, Heartbeat, Tick
  std::unique_ptr<AgentGateway> agent_gateway_;  // the agent API
  std::unique_ptr<RoundDriver> round_driver_;    // rounds
  std::unique_ptr<ClientGateway> client_gateway_;  // the client API
  // What every owner above does to leases (round/lease_actions.h).
  std::unique_ptr<LeaseActions> lease_actions_;
  LeaseActions& actions() const { return *lease_actions_; }
};

}  // namespace synergy::daemon
