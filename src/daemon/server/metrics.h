#pragma once
// synergyd's /metrics: the cluster, its nodes, the scheduler's counters and
// distributions, in Prometheus' text format (service/metrics_text.h), in
// base units (seconds, bytes). docs/operations.md lists every family.
#include <string>

#include "daemon/state/daemon_state.h"

namespace synergy::daemon {

// The exposition text of `state` at `now_ms` (heartbeat ages are relative
// to it). Read under the daemon's lock.
std::string RenderMetrics(const DaemonState& state, int64_t now_ms);

}  // namespace synergy::daemon
