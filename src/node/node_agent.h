#pragma once
// synergy-node's loop: register with synergyd, then heartbeat. Each
// heartbeat carries the processes this node runs and every exit synergyd
// has not acknowledged (a reply received); the reply carries launch and
// stop orders, carried out before the next heartbeat. Orders repeat until
// a heartbeat shows them done (docs/protocol.md): a (job, epoch) is
// started at most once, a repeated stop only shortens the grace. Calls are
// numbered within this process's incarnation, so that synergyd tells a
// call that overtook one the node gave up on from a new one. When synergyd is unreachable the processes keep running and
// the node retries (logging once per outage); a daemon that does not know
// the node (it restarted) asks it to register again, with its running
// processes, so their leases can be re-adopted.
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "node/lease_records.h"
#include "node/node_config.h"
#include "node/node_stats.h"
#include "node/process_launcher.h"
#include "synergy/v1/synergy.grpc.pb.h"

namespace synergy::node {

class NodeAgent {
 public:
  // `cgroups`: what the launcher enforces, reported at registration.
  // `channel`: to synergyd (service::OpenChannel with the node's TLS).
  // `reconnect` opens a new one, which a call that finds synergyd
  // unavailable switches to: gRPC 1.51's TLS channels can stay failed after
  // the server comes back (grpc/grpc#33593), which would outlast the
  // daemon's re-adoption window.
  using Connect = std::function<std::shared_ptr<grpc::Channel>()>;
  // `records`: where each launch is recorded until its exit is reaped
  // (opened; node/lease_records.h).
  NodeAgent(NodeConfig config, NodeOffer offer, std::unique_ptr<ProcessLauncher> launcher,
            std::string cgroups, std::shared_ptr<grpc::Channel> channel, Connect reconnect,
            std::unique_ptr<LeaseRecords> records = nullptr);
  // Exits synergyd is to hear of with the first heartbeat: leases an
  // earlier synergy-node left running, stopped at start (node/orphans.h).
  void ReportAtStart(std::vector<v1::ProcessExit> exits);
  // Runs until `stop` is set; then leaves (Leave).
  void Run(const std::atomic<bool>& stop);
  // Shutting down: tells synergyd the node is leaving, which ends its
  // leases at once (agents checkpoint, plain processes get SIGTERM) and
  // requeues its jobs; keeps heartbeating, launching nothing, until its
  // processes have exited or twice synergyd's lease_grace_s (checkpoint,
  // then SIGTERM to SIGKILL) has passed; then stops what is left (1 s).
  void Leave();
  // One register-or-heartbeat exchange (tests drive it step by step).
  bool Step();
  // For /metrics, /healthz and /readyz (read from another thread).
  const NodeStats& stats() const { return stats_; }

 private:
  bool Register();
  // A failed call to synergyd: logged once per outage, a channel to the
  // next address after UNAVAILABLE or DEADLINE_EXCEEDED (down, a standby,
  // or paused); returns false for Step's caller.
  bool CallFailed(const char* call, const grpc::Status& st);
  // Whether a reply of a synergyd leading at `epoch` (leader_epoch) may be
  // obeyed: not one older than the newest epoch this node has seen (a
  // former leader that woke from a pause), unless only older ones have
  // answered for kEpochRegressionMs (the database was recreated).
  bool FromTheLeader(int64_t epoch);
  static constexpr std::chrono::seconds kEpochRegression{60};
  // The credential calls carry: the node's own (configured, or issued at
  // join and kept in credential_file), else the join credential.
  std::string Credential() const;
  void KeepIssuedCredential(const std::string& credential);
  void Apply(const v1::HeartbeatResponse& response);
  // Starts one launch order's process, unless this process started that
  // lease before; a refusal is queued as its exit.
  void Launch(const v1::LaunchOrder& order);
  // What `order` starts (command, environment, ids, limits, folders),
  // less the account it runs as.
  LaunchSpec SpecFor(const v1::LaunchOrder& order) const;
  // Records a lease as started here; false when it was already.
  bool NoteStarted(const std::pair<std::string, int64_t>& lease);
  // A resize in place: the job's cgroup follows the order (never an older
  // revision than applied).
  void Resize(const v1::ResizeOrder& order);
  // Running processes as the heartbeat and registration report them, with
  // the revision and memory limit applied to each.
  void ReportRunning(google::protobuf::RepeatedPtrField<v1::RunningProcess>& out);
  // Sends each piece of job output the heartbeat's reply asked for.
  void ReturnLogs(const v1::HeartbeatResponse& response);
  // Rotates the running jobs' output files that reached log_max_bytes.
  void KeepOutputUnderCap();

  NodeConfig config_;
  NodeOffer offer_;
  std::unique_ptr<ProcessLauncher> launcher_;
  std::unique_ptr<LeaseRecords> records_;
  std::string cgroups_;
  Connect reconnect_;
  std::unique_ptr<v1::NodeService::Stub> stub_;
  bool unreachable_ = false;
  int64_t leader_epoch_ = 0;              // the newest seen
  // Since when only replies older than leader_epoch_ came (none: nullopt).
  std::optional<std::chrono::steady_clock::time_point> older_epoch_since_;
  int interval_ms_;
  int64_t lease_grace_ms_ = 30000;  // synergyd's, from registration
  std::vector<v1::ProcessExit> unsent_exits_;
  // Leases started by this process (running or not), oldest first, at
  // most kStartedKept: a repeated launch order for one is not started again.
  static constexpr size_t kStartedKept = 4096;
  std::set<std::pair<std::string, int64_t>> started_;
  std::deque<std::pair<std::string, int64_t>> started_order_;
  // This process, as its calls say it (RegisterNodeRequest.incarnation).
  uint64_t incarnation_;
  uint64_t sequence_ = 0;
  std::string issued_credential_;  // from a join (and credential_file)
  // Per running (job, epoch): the lease revision and memory limit its
  // cgroup has (from the launch, then from resize orders).
  struct Applied {
    int64_t revision = 0;
    double mem_limit_gb = 0;
    int64_t failed_revision = 0;  // the last revision that could not be applied (said once)
  };
  std::map<std::pair<std::string, int64_t>, Applied> applied_;
  // Registration and leaving live here only: the HTTP thread reads them.
  NodeStats stats_;
};

}  // namespace synergy::node
