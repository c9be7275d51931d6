#include "daemon/server/standby.h"

#include "absl/strings/str_cat.h"
#include "daemon/server/leader_metrics.h"
#include "daemon/server/transport.h"
#include "daemon/state/postgres_store.h"

namespace synergy::daemon {

// Every method of every service: UNAVAILABLE with the reason, before the
// request is read (a standby holds no state to answer from).
class Standby::RefuseEveryCall : public grpc::CallbackGenericService {
 public:
  explicit RefuseEveryCall(const Standby* standby) : standby_(standby) {}
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext*) override {
    class Refusal : public grpc::ServerGenericBidiReactor {
     public:
      explicit Refusal(const std::string& message) { Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, message)); }
      void OnDone() override { delete this; }
    };
    return new Refusal(standby_->Reason());
  }

 private:
  const Standby* standby_;
};

absl::StatusOr<std::unique_ptr<Standby>> Standby::Serve(const DaemonConfig& config, const std::string& why) {
  std::unique_ptr<Standby> s(new Standby());
  s->instance_ = LeadershipInstanceName(config.store_instance);
  s->SetReason(why);
  auto credentials = ServerCredentialsFor(config.tls);
  if (!credentials.ok()) return credentials.status();
  s->refuse_ = std::make_unique<RefuseEveryCall>(s.get());
  grpc::ServerBuilder builder;
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, kHandshakeTimeoutMs);
  int port = 0;
  builder.AddListeningPort(config.listen, *credentials, &port);
  builder.RegisterCallbackGenericService(s->refuse_.get());
  s->server_ = builder.BuildAndStart();
  if (!s->server_ || port == 0) {
    return absl::AlreadyExistsError(absl::StrCat("listen: cannot serve on '", config.listen,
                                                 "' as a standby: the port is taken or the address is not this "
                                                 "machine's"));
  }
  s->port_ = port;
  if (config.metrics_listen.empty()) return s;
  Standby* raw = s.get();
  s->metrics_.Handle("/metrics", [raw] {
    return service::HttpReply{200, LeaderMetrics(raw->instance_, std::nullopt), service::kPrometheusTextType};
  });
  s->metrics_.Handle("/healthz", [] { return service::HttpReply{200, "ok (standby)\n"}; });
  s->metrics_.Handle("/readyz", [raw] { return service::HttpReply{503, absl::StrCat(raw->Reason(), "\n")}; });
  if (auto bound = s->metrics_.Start(config.metrics_listen, "metrics_listen"); !bound.ok()) return bound.status();
  return s;
}

void Standby::SetReason(const std::string& why) {
  absl::MutexLock lock(&mu_);
  reason_ = absl::StrCat("synergyd '", instance_, "' is a standby and does not serve: ", why,
                         " (give clients every synergyd's address: they move on to the leader)");
}

std::string Standby::Reason() const {
  absl::MutexLock lock(&mu_);
  return reason_;
}

void Standby::Stop() {
  if (server_) {
    server_->Shutdown();
    server_->Wait();
    server_.reset();
  }
  metrics_.Stop();
}

}  // namespace synergy::daemon
