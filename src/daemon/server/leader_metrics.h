#pragma once
// /metrics lines of a synergyd that shares its state with others
// (PostgreSQL, a leader and standbys): which one leads, at which epoch, and
// how often leadership has passed between instances. Alerts read them: no
// instance at synergy_leader 1 for longer than store.failover_s is an
// outage; a rising synergy_leader_takeovers_total is a flapping pair.
#include <optional>
#include <string>

#include "daemon/state/store.h"

namespace synergy::daemon {

// synergy_leader{instance} (1 for `leading`, else 0 for the standby
// `instance`); with `leading` also synergy_leader_epoch and
// synergy_leader_takeovers_total (as of its takeover).
std::string LeaderMetrics(const std::string& instance, const std::optional<Store::Leadership>& leading);

}  // namespace synergy::daemon
