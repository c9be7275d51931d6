#include "daemon/server/leader_metrics.h"

#include "service/metrics_text.h"

namespace synergy::daemon {

std::string LeaderMetrics(const std::string& instance, const std::optional<Store::Leadership>& leading) {
  service::MetricsText m;
  m.Family("synergy_leader", "gauge",
           "1 where this synergyd leads the shared state (writes it and schedules), 0 on a standby.");
  m.Sample("synergy_leader", {{"instance", leading ? leading->instance : instance}}, leading ? 1 : 0);
  if (leading) {
    m.Gauge("synergy_leader_epoch", "The fencing epoch this leader writes at (raised at every takeover).",
            static_cast<double>(leading->epoch));
    m.Counter("synergy_leader_takeovers_total",
              "Times leadership of the state passed from one synergyd instance to another, as of this "
              "leader's takeover.",
              static_cast<double>(leading->takeovers));
  }
  return m.Take();
}

}  // namespace synergy::daemon
