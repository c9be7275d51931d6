#include "node/node_stats.h"

#include <algorithm>

#include "service/metrics_text.h"
#include "synergy/version.h"

namespace synergy::node {

std::string RenderNodeMetrics(const NodeStats& s, const std::string& node, int64_t now_ms) {
  service::MetricsText m;
  m.Family("synergy_node_build_info", "gauge", "Always 1; the build's version and source revision as labels.");
  m.Sample("synergy_node_build_info", {{"version", kSynergyVersion}, {"revision", kSynergyRevision}, {"node", node}},
           1);
  m.Gauge("synergy_node_registered", "1 while registered with synergyd.", s.registered ? 1 : 0);
  const int64_t last = s.last_heartbeat_ok_unix_ms;
  m.Gauge("synergy_node_last_heartbeat_age_seconds", "Time since synergyd last answered a heartbeat (0: never).",
          last > 0 ? std::max<int64_t>(0, now_ms - last) / 1000.0 : 0);
  m.Gauge("synergy_node_processes_running", "Job processes this node runs.", s.running.load());
  m.Counter("synergy_node_heartbeats_total", "Heartbeats synergyd answered.", s.heartbeats_ok.load());
  m.Counter("synergy_node_call_failures_total", "Registrations and heartbeats synergyd did not answer.",
            s.call_failures.load());
  m.Counter("synergy_node_launches_total", "Job processes started.", s.launches.load());
  m.Counter("synergy_node_resizes_total", "Resize orders applied: a running job's CPUs or memory changed in place.",
            s.resizes.load());
  m.Counter("synergy_node_launch_failures_total", "Launch orders that could not start a process.",
            s.launch_failures.load());
  m.Counter("synergy_node_stop_orders_total", "Stop orders received.", s.stop_orders.load());
  m.Family("synergy_node_exits_total", "counter",
           "Job processes that exited: ok (status 0), error (another status or a signal), stopped (by this node).");
  m.Sample("synergy_node_exits_total", {{"outcome", "ok"}}, s.exits_ok.load());
  m.Sample("synergy_node_exits_total", {{"outcome", "error"}}, s.exits_error.load());
  m.Sample("synergy_node_exits_total", {{"outcome", "stopped"}}, s.exits_stopped.load());
  return m.Take();
}

bool NodeReady(const NodeStats& s, int64_t now_ms, std::string* why) {
  if (!s.registered) {
    *why = "not registered with synergyd";
    return false;
  }
  if (s.leaving) {
    *why = "leaving";
    return false;
  }
  const int64_t limit = std::max<int64_t>(3000, 3 * s.heartbeat_interval_ms.load());
  if (now_ms - s.last_heartbeat_ok_unix_ms.load() > limit) {
    *why = "synergyd has not answered a heartbeat for " + std::to_string(limit / 1000) + " s";
    return false;
  }
  return true;
}

}  // namespace synergy::node
