// RoundDriver, what keeps a job out of rounds other than a hold: its
// dependencies (judged before each round: met for good, or never to be
// met) and its array's cap on jobs running at once.
#include <map>

#include "absl/strings/str_cat.h"
#include "daemon/round/round_driver.h"
#include "service/job_arrays.h"

namespace synergy::daemon {

void RoundDriver::SettleDependencies(Batch& batch, int64_t now_ms) {
  // Outcomes change only when a job ends or one with dependencies arrives:
  // otherwise nothing to judge (a round would read every dependency again).
  if (settled_generation_ == state_.dependency_generation_) return;
  settling_generation_ = state_.dependency_generation_;
  DaemonState::DependencyLookups lookups;
  for (const std::string& id : state_.jobs_.queue_order()) {
    const v1::Job& waiting = state_.jobs_.at(id);
    if (state_.Terminal(waiting) || !DaemonState::AwaitsDependencies(waiting)) continue;
    const DependencyCheck check = state_.DependenciesOf(waiting, &lookups);
    if (check.outcome == DependencyCheck::Outcome::kWaiting) continue;
    v1::Job& job = state_.jobs_.Edit(id);
    if (check.outcome == DependencyCheck::Outcome::kMet) {
      job.set_dependencies_met(true);
      state_.Record(batch, job, "dependencies met: it may run", now_ms);
      state_.NoteLaunchEvent(now_ms);
      continue;
    }
    const std::string reason = DescribeDependency(check);
    state_.jobs_.Move(job, JobMove::kCancel, reason, now_ms);
    state_.Record(batch, job, absl::StrCat("cancelled: ", reason), now_ms);
  }
}

std::vector<bool> RoundDriver::OverArrayCaps() const {
  const std::vector<std::string>& order = state_.jobs_.queue_order();
  std::vector<bool> over(order.size(), false);
  // Array id -> places left under its cap; first, those leases hold.
  std::map<std::string, int> room;
  for (const std::string& id : order) {
    const v1::Job& job = state_.jobs_.at(id);
    if (job.array_id().empty()) continue;
    const int cap = service::ArrayCap(job.spec().array());
    if (cap == 0) continue;
    auto it = room.emplace(job.array_id(), cap).first;
    if (job.has_lease() && !state_.Terminal(job)) --it->second;
  }
  if (room.empty()) return over;
  for (size_t i = 0; i < order.size(); ++i) {
    const v1::Job& job = state_.jobs_.at(order[i]);
    auto it = room.find(job.array_id());
    if (it == room.end() || job.has_lease() || state_.Terminal(job) || job.held() ||
        DaemonState::AwaitsDependencies(job)) {
      continue;
    }
    if (it->second > 0) {
      --it->second;
    } else {
      over[i] = true;
    }
  }
  return over;
}

}  // namespace synergy::daemon
