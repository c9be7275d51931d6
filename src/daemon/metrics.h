#pragma once
// /metrics in Prometheus' text format. prometheus-cpp is not packaged in
// Debian 12, so this is a minimal HTTP/1.0 responder on its own thread:
// every GET answers with the text `render` returns at that moment.
#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "daemon/daemon_state.h"

namespace synergy::daemon {

// The exposition text of the daemon's state and counters.
std::string RenderMetrics(const DaemonState& state);

class MetricsServer {
 public:
  // `address` is host:port (port 0 picks one); returns the bound port.
  absl::StatusOr<int> Start(const std::string& address, std::function<std::string()> render);
  void Stop();
  ~MetricsServer() { Stop(); }

 private:
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace synergy::daemon
