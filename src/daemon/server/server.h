#pragma once
// synergyd assembled: the state database, DaemonState, the gRPC server on
// `listen`, /metrics, /healthz and /readyz on `metrics_listen`, and the
// round loop (Tick every 100 ms, a round every
// round_s of wall clock). Used by main.cc and by the integration tests,
// which start it in-process on an ephemeral port.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <thread>

#include "absl/status/statusor.h"
#include "daemon/server/config.h"
#include "daemon/server/metrics.h"
#include "daemon/api/services.h"
#include "daemon/nodes/slurm_executor_loop.h"
#include "grpcpp/grpcpp.h"
#include "service/http_endpoint.h"

namespace synergy::daemon {

class Daemon {
 public:
  static absl::StatusOr<std::unique_ptr<Daemon>> Start(const DaemonConfig& config);
  ~Daemon();
  int port() const { return port_; }            // the bound gRPC port
  int metrics_port() const { return metrics_port_; }
  // Credentials as this daemon mints them (fixed after Start; tests hand a
  // lease's credential to an agent as a node would).
  const Authenticator& authenticator() const { return state_->authenticator(); }
  void Wait();      // until Shutdown (from another thread or a signal handler thread)
  void Shutdown();

 private:
  Daemon() = default;
  void RoundLoop();
  // Builds and starts the gRPC server on `listen` (port_ set from it).
  absl::Status StartServer(const std::string& listen);
  // Once a second: the listener's accept queue (listener_watchdog.h); a
  // listener that stopped accepting is replaced on the same port.
  void WatchListener();
  // /metrics lines of the Slurm executor ("" under executor: node).
  std::string SlurmMetrics() const;

  DaemonConfig config_;
  std::unique_ptr<DaemonState> state_;
  LogRelay log_relay_;
  Guarded guarded_;
  std::unique_ptr<SchedulerServiceImpl> scheduler_;
  std::unique_ptr<NodeServiceImpl> node_;
  std::unique_ptr<AgentServiceImpl> agent_;
  std::mutex server_mu_;  // server_ is replaced by WatchListener, ended by Shutdown
  std::unique_ptr<grpc::Server> server_;
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
  std::atomic<bool> stop_{false};
  bool done_ = false;  // Shutdown finished (guarded by wait_mu_)
  std::mutex wait_mu_;
  std::condition_variable wait_cv_;
  std::thread loop_;
  std::thread listener_watch_;
  std::atomic<int64_t> listener_rebuilds_{0};  // /metrics: synergy_listener_rebuilds_total
};

}  // namespace synergy::daemon
