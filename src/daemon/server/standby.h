#pragma once
// A synergyd waiting to lead: its store is PostgreSQL and another instance
// leads it. It holds the addresses it will serve once it leads, so that
// clients and probes get an answer rather than a refused connection:
// - the gRPC port answers every call UNAVAILABLE, naming the leader;
//   clients given several addresses (`scheduler: a:50051,b:50051`) take
//   that as "try the next one" and so reach the leader;
// - the metrics port serves /metrics (synergy_leader{instance} 0),
//   /healthz (200: the process is well) and /readyz (503: not the leader,
//   so a load balancer sends nothing here).
// It neither reads nor writes the state.
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "daemon/server/config.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "service/http_endpoint.h"

namespace synergy::daemon {

class Standby {
 public:
  // Binds config.listen (with the config's TLS) and config.metrics_listen;
  // errors as Daemon::Start's for the same settings. `why`: why this one
  // does not lead (the store's refusal, which names the leader).
  static absl::StatusOr<std::unique_ptr<Standby>> Serve(const DaemonConfig& config, const std::string& why);
  ~Standby() { Stop(); }
  int port() const { return port_; }  // the bound gRPC port
  // What calls and /readyz are told from now on.
  void SetReason(const std::string& why);
  // Frees both addresses (the daemon that takes over binds them); once.
  void Stop();

 private:
  class RefuseEveryCall;
  Standby() = default;
  std::string Reason() const;

  std::string instance_;
  int port_ = 0;
  mutable absl::Mutex mu_;
  std::string reason_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<grpc::CallbackGenericService> refuse_;
  std::unique_ptr<grpc::Server> server_;
  service::HttpEndpoint metrics_;
};

}  // namespace synergy::daemon
