#pragma once
// synergyd assembled: the state database, DaemonState, the gRPC server on
// `listen`, /metrics, /healthz and /readyz on `metrics_listen`, and the
// round loop (Tick every 100 ms, a round every
// round_s of wall clock). Used by main.cc and by the integration tests,
// which start it in-process on an ephemeral port.
#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "daemon/server/config.h"
#include "daemon/server/metrics.h"
#include "daemon/api/services.h"
#include "daemon/nodes/slurm_executor_loop.h"
#include "daemon/state/postgres_store.h"
#include "grpcpp/grpcpp.h"
#include "service/http_endpoint.h"

namespace synergy::daemon {

class Daemon {
 public:
  // A standby's try to take over (main.cc): what it has seen of the
  // leader's lease so far (PostgresLeadership::sighting), and what frees
  // its addresses once the state is loaded, just before they are bound.
  struct Takeover {
    LeaseSighting* sighting = nullptr;
    std::function<void()> before_serving;
  };
  static absl::StatusOr<std::unique_ptr<Daemon>> Start(const DaemonConfig& config, const Takeover& takeover);
  static absl::StatusOr<std::unique_ptr<Daemon>> Start(const DaemonConfig& config) { return Start(config, {}); }
  ~Daemon();
  int port() const { return port_; }            // the bound gRPC port
  int metrics_port() const { return metrics_port_; }
  // Credentials as this daemon mints them (fixed after Start; tests hand a
  // lease's credential to an agent as a node would).
  const Authenticator& authenticator() const { return *guarded_.authenticator; }
  void Wait();      // until Shutdown (from another thread or a signal handler thread)
  // It stopped because another synergyd took the state over (it asked for
  // its own shutdown with SIGTERM): it must exit non-zero, to be restarted
  // as a standby.
  bool stepped_down() const { return stepped_down_; }
  void Shutdown();

 private:
  Daemon() = default;
  void RoundLoop();
  // Under guarded_.mu: ends this daemon (SIGTERM to itself) once its store
  // is fenced (another synergyd leads the state).
  void StepDownIfFenced() ABSL_EXCLUSIVE_LOCKS_REQUIRED(guarded_.mu);
  // A progress flush started under the lock: stored through
  // `store_without_lock` (the state, whose StoreProgress only waits on the
  // store's queue), then finished under the lock.
  void FinishFlush(DaemonState* store_without_lock, DaemonState::ProgressFlush& flush);
  // A launch between rounds or a round whose world was prepared under the
  // lock: planned by `planner` without it (planning reads only what
  // DaemonState::Open set), applied under it. PlanAndApplyRound: whether
  // the round's changes were stored.
  void LaunchBetweenRounds(const DaemonState& planner, const RoundWorld& world);
  bool PlanAndApplyRound(const DaemonState& planner, const RoundWorld& world);
  // /metrics, /healthz and /readyz on metrics_listen (metrics_port_ set
  // from it). `opened`: the state, for what /readyz reads without its lock.
  absl::Status ServeMetrics(const DaemonState* opened);
  // Builds and starts the gRPC server on `listen` (port_ set from it).
  absl::Status StartServer(const std::string& listen);
  // Once a second: the listener's accept queue (listener_watchdog.h); a
  // listener that stopped accepting is replaced on the same port.
  void WatchListener();
  // /metrics lines of the Slurm executor ("" under executor: node).
  std::string SlurmMetrics() const;
  // Its certificate's expiry: warned of at start and once a day within
  // kCertificateWarningS of it, and on /metrics ("" under plain text).
  static constexpr int64_t kCertificateWarningS = 14 * 24 * 3600;
  static constexpr int kSecondsPerDay = 24 * 3600;
  void WarnIfCertificateExpiresSoon() const;
  std::string CertificateMetrics() const;

  DaemonConfig config_;
  std::unique_ptr<DaemonState> state_ ABSL_PT_GUARDED_BY(guarded_.mu);
  LogRelay log_relay_;
  Guarded guarded_;
  std::unique_ptr<SchedulerServiceImpl> scheduler_;
  std::unique_ptr<NodeServiceImpl> node_;
  std::unique_ptr<AgentServiceImpl> agent_;
  // Locks, each taken alone (none is held while another is taken):
  // guarded_.mu (the state; api/services.h, which names the locks taken
  // under it) and server_mu_ (server_ is replaced by WatchListener and
  // ended by Shutdown).
  absl::Mutex server_mu_;
  std::unique_ptr<grpc::Server> server_ ABSL_GUARDED_BY(server_mu_);
  std::unique_ptr<SlurmExecutorLoop> slurm_;  // executor: slurm
  service::HttpEndpoint metrics_;
  // When the round loop last ticked (unix ms): /healthz and /readyz read it.
  std::atomic<int64_t> last_tick_ms_{0};
  // When the next round is due (unix ms; 0 before the first): the Slurm
  // executor reads Slurm just before it, so that the round sees which jobs
  // ended (SlurmExecutorLoop).
  std::atomic<int64_t> next_round_unix_ms_{0};
  int port_ = 0;
  int metrics_port_ = 0;
  int64_t cert_not_after_s_ = 0;  // tls.cert's expiry (unix s); 0 under plain text
  std::atomic<bool> shutting_down_{false};  // Shutdown runs once
  std::atomic<bool> stepped_down_{false};
  absl::Notification stop_;     // the loops end (Shutdown began)
  absl::Notification stopped_;  // Shutdown finished (Wait returns)
  std::thread loop_;
  std::thread listener_watch_;
  std::atomic<int64_t> listener_rebuilds_{0};  // /metrics: synergy_listener_rebuilds_total
};

}  // namespace synergy::daemon
