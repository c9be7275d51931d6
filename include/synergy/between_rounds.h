#pragma once
// Launches between rounds (issue 41): a round plans every job, but jobs
// end, exit and arrive in between, and what an ended job held would sit
// idle until the next round while others wait. When resources free up
// (a job ends, exits, is cancelled or held, a lease shrinks, a node joins
// or is undrained) or a job arrives, a driver places the waiting jobs on
// what the running leases leave free, at once, by the round's own engine:
// the same plan_around as the round's replan loop (lease_keeping.h), with
// every running job pinned as it holds. So the policy's order, the
// mechanism's rules (TUNE: never below the proportional share, sensitive
// jobs may take more of what is free) and the drivers' views are a
// round's; no running lease is ended, moved or resized. The next round
// plans everything as usual.
//
// Both drivers (synergy-sim's default mode, synergyd) call LaunchBetweenRounds
// and decide when through a LaunchTrigger: synergy-sim at each event's
// simulated time (no debounce), synergyd once the events of a short
// window are in (launch_debounce_ms). Reference-compatible mode and
// `--launch-between-rounds off` launch only in rounds, as the paper.
// Pure: the same inputs and callback give the same launches.
#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "synergy/plan.h"

namespace synergy {

// When to try: events that come within `debounce` of the first one not
// yet tried are coalesced into one try, `debounce` after it. Times are
// the driver's (seconds or milliseconds, one unit throughout).
class LaunchTrigger {
 public:
  explicit LaunchTrigger(double debounce) : debounce_(debounce) {}
  // Something freed resources or a job arrived at `now`.
  void Note(double now) {
    if (!due_) due_ = now + debounce_;
  }
  // A try is due at `now` (events are waiting and their window has passed).
  bool Due(double now) const { return due_ && *due_ <= now; }
  // When the next try is due; nullopt when no event waits.
  std::optional<double> due_at() const { return due_; }
  // The try is made: events from now on wait for the next one.
  void Tried() { due_.reset(); }

 private:
  double debounce_;
  std::optional<double> due_;
};

// Whether a try can place anything, by GPU count alone (the plan decides
// the rest): a waiting job asks for no more GPUs than are free.
// `fewest_gpus_waiting`: the smallest GPU count among the waiting jobs
// (0 or less: none waits).
inline bool CanLaunchAny(int free_gpus, int fewest_gpus_waiting) {
  return fewest_gpus_waiting > 0 && fewest_gpus_waiting <= free_gpus;
}

// The fewest servers a job of `gpus` GPUs fits on, where the widest
// server has `widest_server_gpus` (at least 1).
inline int ServersNeeded(int gpus, int widest_server_gpus) {
  const int widest = widest_server_gpus > 0 ? widest_server_gpus : 1;
  return (gpus + widest - 1) / widest;
}

// The waiting jobs' launches: `plan_around(pinned)` is the driver's plan
// of every job but `pinned` around what those hold (its round's replan
// callback), called once with every job of `running` pinned. Of its
// assignments, a launch takes:
//  - none of a running job (a callback that ignored a pin): a running
//    lease is never re-placed between rounds;
//  - none that spans more servers than the job needs (ServersNeeded with
//    `widest_server_gpus`, the cluster's widest server): what running
//    jobs leave free is scattered, and a job split over it runs at its
//    placement penalty until the next round consolidates it, which ends
//    its lease (lease_fate.h), a restart. Such a job waits for the round.
//    (Measured: with kept leases and 30 s restarts, FIFO/TUNE at load 6
//    lost 1.5% mean JCT to launches that split, and gains 0.4% without.)
Plan LaunchBetweenRounds(const std::vector<JobId>& running, int widest_server_gpus,
                         const std::function<Plan(const std::set<JobId>& pinned)>& plan_around);

}  // namespace synergy
