#pragma once
// What synergy-node's /metrics, /healthz and /readyz report: written by the
// node's loop (NodeAgent), read by the HTTP thread, so every field is atomic.
#include <atomic>
#include <cstdint>
#include <string>

namespace synergy::node {

struct NodeStats {
  std::atomic<bool> registered{false};
  std::atomic<bool> leaving{false};
  std::atomic<int64_t> last_heartbeat_ok_unix_ms{0};
  std::atomic<int64_t> heartbeat_interval_ms{1000};
  std::atomic<int64_t> heartbeats_ok{0};
  std::atomic<int64_t> call_failures{0};  // registrations and heartbeats synergyd did not answer
  std::atomic<int64_t> launches{0};
  std::atomic<int64_t> launch_failures{0};
  std::atomic<int64_t> stop_orders{0};
  std::atomic<int64_t> resizes{0};        // resize orders applied (a job's cgroup changed in place)
  std::atomic<int64_t> exits_ok{0};       // status 0
  std::atomic<int64_t> exits_error{0};    // another status or a signal, not stopped by the node
  std::atomic<int64_t> exits_stopped{0};  // stopped by the node (a lease's end, a shutdown)
  std::atomic<int64_t> running{0};
};

// The exposition text (Prometheus' format, service/metrics_text.h).
std::string RenderNodeMetrics(const NodeStats& stats, const std::string& node, int64_t now_ms);
// Ready: registered with synergyd, not leaving, and a heartbeat answered
// within three intervals (at least 3 s). `why` says what is missing.
bool NodeReady(const NodeStats& stats, int64_t now_ms, std::string* why);

}  // namespace synergy::node
