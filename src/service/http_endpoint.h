#pragma once
// A minimal HTTP/1.0 endpoint for Prometheus scrapes and health probes
// (prometheus-cpp is not packaged in Debian 12): one thread answers GET
// requests for the registered paths on up to kMaxConnections connections at
// once (non-blocking, one poll loop), each bounded in time: a client that
// says or reads nothing holds its slot for at most kConnectionLimit, and
// holds up no one else. Beyond the cap, connections wait in the listen
// queue. Query strings are ignored; any other path is 404, any other
// method 405.
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "absl/status/statusor.h"

namespace synergy::service {

struct HttpReply {
  int status = 200;  // 200 or 503 (not ready)
  std::string body;
  std::string content_type = "text/plain; charset=utf-8";
};

class HttpEndpoint {
 public:
  static constexpr int kMaxConnections = 64;
  static constexpr std::chrono::milliseconds kConnectionLimit{2000};
  using Handler = std::function<HttpReply()>;
  // Before Start.
  void Handle(const std::string& path, Handler handler) { routes_[path] = std::move(handler); }
  // `address` is IPv4 host:port (port 0 picks one); `what` names the
  // setting in errors ("metrics_listen"). Returns the bound port.
  absl::StatusOr<int> Start(const std::string& address, const std::string& what);
  void Stop();
  ~HttpEndpoint() { Stop(); }

 private:
  void Serve();

  std::map<std::string, Handler> routes_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The reply to a request's first line, by `routes` (exposed for tests).
HttpReply Route(const std::map<std::string, HttpEndpoint::Handler>& routes, const std::string& request);

// Prometheus' content type for the text format.
inline constexpr const char* kPrometheusTextType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace synergy::service
