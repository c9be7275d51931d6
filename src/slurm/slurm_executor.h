#pragma once
// synergyd's Slurm executor (issue 19, docs/slurm.md): Slurm's nodes as
// synergyd's nodes. For each node of the partition synergyd owns, the
// executor speaks synergyd's node protocol in-process: it registers the
// node with what Slurm says it has, and each step heartbeats it with the
// lease jobs Slurm lists there, then carries out the reply's orders as
// Slurm commands. The round, the leases, the store and the agent protocol
// are synergyd's as with synergy-node; only starting, stopping and
// observing processes go through Slurm.
//
//   registration   a node usable in sinfo (not down, not drained); its
//                  resources from sinfo (ResourcesOfSlurmNode), read every
//                  step: a change registers the node again
//   running        a job named as a lease (synergy-<job>-<epoch>) of the
//                  partition, run as the lease owner's uid, on the node it
//                  was submitted for, RUNNING, COMPLETING, ...; PENDING
//                  (and just submitted) is reported queued: not started,
//                  no time held
//   exit           the same job ended: its exit code or signal, once;
//                  CANCELLED counts as stopped by the node (only synergyd
//                  and the cluster's admins cancel in its partition); a
//                  COMPLETED 0 is the job's own success unless it ended
//                  after synergyd's TERM or cancel reached Slurm (end_time,
//                  whole seconds: within the second, a success)
//   launch         one sbatch (SbatchFor) as the owner's uid and primary
//                  group, after a lookup by name: a lease whose job Slurm
//                  already has is never submitted again; its output
//                  folders made first (output_folders.h)
//   stop           TERM to the batch step now, the job cancelled once the
//                  order's grace has passed (a waiting job: cancelled now)
//   node down      no heartbeat: synergyd loses it after its heartbeat
//                  timeout and requeues its jobs, as for a silent node
//   node drained   heartbeats saying it is leaving: its leases end (agents
//                  checkpoint) and nothing new is placed there
//   shared node    what Slurm has allocated there to jobs that are not
//                  this executor's (other users, other partitions) is
//                  told with each heartbeat (ForeignUse): synergyd plans
//                  only the rest
//   resize         refused: Slurm cannot change a running job's CPUs
//
// "Never twice": a launch order is stored by synergyd before it reaches
// the executor; sbatch runs only after squeue shows no job of the lease's
// name; a submission whose fate is unknown (sbatch timed out) is looked for
// in the next steps before anything else is decided; after a restart the
// executor knows its jobs again from squeue by their names.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "slurm/output_folders.h"
#include "slurm/slurm_cli.h"
#include "slurm/slurm_json.h"
#include "slurm/slurm_launch.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::slurm {

// synergyd's side of the node protocol, in-process. The daemon's adapter
// checks each request as its RPC would and takes its lock.
class NodeEndpoint {
 public:
  virtual ~NodeEndpoint() = default;
  virtual absl::StatusOr<v1::RegisterNodeResponse> Register(const v1::RegisterNodeRequest& request) = 0;
  virtual absl::StatusOr<v1::HeartbeatResponse> Heartbeat(const v1::HeartbeatRequest& request) = 0;
  // The owner of a job synergyd knows (nullopt otherwise): a Slurm job of a
  // lease's name counts only when it runs as its owner's account.
  virtual std::optional<std::string> OwnerOf(const std::string& job_id) = 0;
};

struct SlurmExecutorConfig {
  std::string partition;  // the partition synergyd owns; required
  SbatchOptions sbatch;   // partition, log and work folders, sbatch's environment
  // Variables every lease's job gets on top of the launch order's: how its
  // agent reaches synergyd (SYNERGY_SCHEDULER, SYNERGY_TLS_CA, ...), as
  // synergy-node adds them from its own config.
  std::map<std::string, std::string> agent_env;
  // Variables every lease's job gets where its spec sets none of that name
  // (slurm.job_env: PYTHONPATH for a Python package outside the system's
  // path; sbatch runs with --export=NONE, so nothing else reaches a job).
  std::map<std::string, std::string> default_env;
  // How long a job just submitted may be missing from squeue before it
  // counts as lost (slurmctld answers sbatch before squeue lists it only
  // rarely; a submission whose fate is unknown is looked for this long).
  int64_t submit_visible_ms = 30000;
  // How long a lease's Slurm job may wait in Slurm's queue before it is
  // cancelled (synergyd submits only what its plan fits: a job that waits
  // long means Slurm's view of the node differs).
  int64_t max_pending_ms = 300000;
  // Makes a lease's output folders before its sbatch (output_folders.h);
  // tests that are not root give their own.
  std::function<absl::Status(const std::string& log_dir, const JobIdentity& who, const std::string& node)>
      make_output_folders = MakeOutputFolders;
  // How long nodes are heartbeat as last seen while Slurm cannot be read
  // (a slurmctld restart), before they are left silent and lost.
  int64_t stale_limit_ms = 600000;
  // The most a step goes on what Slurm said before instead of reading it
  // again (sinfo and squeue cost slurmctld and synergyd a whole listing).
  // Slurm is read at once while anything is in flight: orders just given,
  // a submission not yet running, a stop not yet over. So this bounds only
  // how late a job's own end and another user's job are seen.
  int64_t read_interval_ms = 0;
};

class SlurmExecutor {
 public:
  // Whom a user's jobs run as (node/job_account.h's rule); an error
  // refuses the launch (the job fails: retrying cannot help).
  using IdentityFor = std::function<absl::StatusOr<JobIdentity>(const std::string& user)>;
  SlurmExecutor(SlurmExecutorConfig config, SlurmControl& slurm, NodeEndpoint& daemon, IdentityFor identity_for);

  // One step at `now_ms`: reads Slurm's nodes and jobs (when due: see
  // read_interval_ms), registers and heartbeats every node of the
  // partition, carries out the orders, and cancels stopped jobs whose
  // grace has passed. An error says Slurm could not be read: the nodes
  // were heartbeat as last seen (for up to stale_limit_ms; after that
  // nothing is sent and synergyd loses them).
  absl::Status Step(int64_t now_ms);

  // The next step reads Slurm whatever read_interval_ms says (synergyd's
  // next round is near: it should see which jobs ended).
  void ReadAtNextStep() { read_next_ = true; }

  // Times Slurm was read (sinfo and squeue), for tests and metrics.
  int64_t reads() const { return reads_; }

  // What the executor believes of a lease's Slurm job, for tests and logs.
  std::optional<int64_t> SlurmJobOf(const std::string& job_id, int64_t epoch) const;

 private:
  using Key = std::pair<std::string, int64_t>;  // (job id, epoch)
  // A job this executor submitted (or found by name), until its exit has
  // been told.
  struct Submitted {
    int64_t slurm_id = 0;  // 0: sbatch's answer was lost; looked for by name
    std::string node;
    int64_t at_ms = 0;
    std::string unknown_reason;  // why slurm_id is 0
  };
  struct Stopping {
    int64_t kill_at_ms = 0;
    bool cancelled = false;
    // When Slurm took a TERM or a cancel for it (0: none yet, e.g. the job
    // had ended already): a job that ended before is not stopped by us.
    int64_t signalled_ms = 0;
    // The TERM (or a waiting job's cancel) was sent, or tried, on a fresh
    // read of Slurm; not retried (after its grace, the cancel follows).
    bool delivered = false;
  };
  // squeue's lease jobs that are this executor's to report: in the
  // partition, named as a lease, run as the owner's uid.
  struct Observed {
    std::map<Key, SlurmJob> by_lease;
    std::map<std::string, std::vector<Key>> by_node;
  };
  // Reads sinfo and squeue into last_nodes_ and last_jobs_.
  absl::Status ReadSlurm(int64_t now_ms);
  Observed Observe(const std::vector<SlurmJob>& jobs);
  bool OwnedByLeaseOwner(const SlurmJob& job, const Key& key);
  std::string NodeOf(const SlurmJob& job) const;
  // The exits of jobs submitted but missing from squeue past
  // submit_visible_ms, queued for their nodes.
  void ForgetVanished(const Observed& seen, int64_t now_ms);
  // `fresh`: Slurm was read this step (else nodes and jobs are as last seen).
  void ServeNode(const SlurmNode& node, const Observed& seen, int64_t now_ms, bool fresh);
  // Whether `node` gets a heartbeat this step (usable, or drained with
  // something still to report).
  bool Served(const SlurmNode& node, const Observed& seen) const;
  // A node's heartbeat: its lease jobs, the exits not yet told, and the
  // ended jobs and queued exits it tells (to forget once it is taken).
  struct Beat {
    v1::HeartbeatRequest request;
    std::vector<std::pair<Key, int64_t>> ended;  // (lease, Slurm job) told with it
    size_t unsent = 0;                           // of unsent_exits_[node], the first this many
  };
  Beat BeatOf(const SlurmNode& node, const Observed& seen);
  // Registers `node` where it is not, or where Slurm reports other
  // resources than it registered with; false where synergyd refused.
  bool Registered(const SlurmNode& node, const v1::HeartbeatRequest& beat);
  // What work that is not this executor's holds on `node` (ForeignUse).
  v1::ForeignUse ForeignOn(const SlurmNode& node, const Observed& seen, bool fresh);
  void Launch(const v1::LaunchOrder& order, const std::string& node, const Observed& seen, int64_t now_ms);
  // Records the stop; signals the job now where `fresh`, else after the
  // next read (DeliverStop).
  void Stop(const v1::StopOrder& order, const Observed& seen, int64_t now_ms, bool fresh);
  // TERM to a running job, a cancel to a waiting one, as `seen` lists it.
  void DeliverStop(const Key& key, Stopping& stopping, const Observed& seen, int64_t now_ms);
  void CancelOverdue(const Observed& seen, int64_t now_ms);
  void CancelLongPending(const Observed& seen, int64_t now_ms);
  void QueueExit(const std::string& node, v1::ProcessExit exit);

  SlurmExecutorConfig config_;
  SlurmControl& slurm_;
  NodeEndpoint& daemon_;
  IdentityFor identity_for_;
  std::vector<SlurmNode> last_nodes_;
  std::vector<SlurmJob> last_jobs_;
  int64_t last_read_ms_ = -1;
  // Registered nodes, with the resources they registered with: a node
  // whose resources Slurm reports changed (gres, CPUs, memory) registers
  // again, so that no lease is planned on what it no longer has.
  std::map<std::string, v1::NodeResources> registered_;
  std::map<Key, Submitted> submitted_;
  std::map<Key, Stopping> stopping_;
  // Ended Slurm jobs whose exit synergyd has taken (Slurm lists them for
  // MinJobAge); trimmed to those squeue still lists.
  std::set<int64_t> told_;
  // Exits of launches that never became Slurm jobs, per node, until a
  // heartbeat carries them.
  std::map<std::string, std::vector<v1::ProcessExit>> unsent_exits_;
  std::map<std::string, JobIdentity> identity_of_user_;  // cached IdentityFor
  // The identity of `user`, cached.
  absl::StatusOr<JobIdentity> IdentityOf(const std::string& user);
  std::set<int64_t> foreign_warned_;            // lease-named jobs not ours, said once
  bool resize_warned_ = false;
  // Something is in flight (orders given, a submission not running yet, a
  // stop not over): the next step reads Slurm whatever read_interval_ms.
  bool read_next_ = true;
  bool orders_given_ = false;  // this step's heartbeat replies carried orders
  int64_t reads_ = 0;
  // Whether anything of this executor's waits on Slurm in `seen`.
  bool InFlight(const Observed& seen) const;
  // Per node: the foreign share of the latest read, and the one last logged.
  std::map<std::string, SlurmResources> foreign_seen_;
  std::map<std::string, SlurmResources> foreign_said_;
};

}  // namespace synergy::slurm
