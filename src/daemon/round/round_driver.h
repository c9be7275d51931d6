#pragma once
// synergyd's round driver: a round in three steps, so that the core plans
// without the daemon's lock (round_planner.h). PrepareRound (under the
// lock) lends nodes for profiling and copies what the round reads;
// PlanRound (without it: it reads only what DaemonState::Open set) plans;
// ApplyRound (under it) grants, keeps, resizes and ends leases as planned,
// skipping jobs and nodes that changed since PrepareRound (the next round
// sees them) and queuing the jobs left waiting with why (apply_round.cc).
//
// It acts on DaemonState's tables through the state's changes and lease
// actions (a friend of it); DaemonState's round methods are this driver's.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/round/round_planner.h"
#include "daemon/state/daemon_state.h"

namespace synergy::daemon {

class RoundDriver {
 public:
  explicit RoundDriver(DaemonState& state) : state_(state) {}
  RoundDriver(const RoundDriver&) = delete;
  RoundDriver& operator=(const RoundDriver&) = delete;

  // DaemonState's PrepareRound, PlanRound, ApplyRound, RunRound and
  // SnapshotForRound (see there).
  absl::StatusOr<RoundWorld> PrepareRound(int64_t now_ms);
  RoundDecisions PlanRound(const RoundWorld& world) const;
  absl::Status ApplyRound(const RoundWorld& world, const RoundDecisions& decisions, int64_t now_ms);
  absl::Status RunRound(int64_t now_ms);
  RoundSnapshot SnapshotForRound(int64_t now_ms, const std::set<std::string>& pinned) const;
  // DaemonState's PrepareLaunch, PlanLaunches, ApplyLaunches and
  // LaunchBetweenRounds (see there).
  absl::StatusOr<RoundWorld> PrepareLaunch(int64_t now_ms);
  RoundDecisions PlanLaunches(const RoundWorld& world) const;
  absl::Status ApplyLaunches(const RoundWorld& world, const RoundDecisions& decisions, int64_t now_ms);
  absl::Status LaunchBetweenRounds(int64_t now_ms);

 private:
  using JobRuntime = JobTable::Runtime;
  // A round's or a launch's planning (round_planner.h), with its time in
  // plan_ms.
  using Planner = RoundDecisions (*)(const RoundWorld&, const ModelZoo&, const Policy&, const Mechanism&, TypeChoice);
  RoundDecisions PlanTimed(Planner planner, const RoundWorld& world) const;
  // What the round at `now_ms` reads, copied (round_planner.h).
  RoundWorld WorldForRound(int64_t now_ms) const;
  // GPUs held by each tenant with a quota (by index) through leases of
  // jobs not in `world`'s queue (profiling, or exiting after their last
  // checkpoint): they count against its quota all the same.
  std::vector<int> TenantGpusOutside(const RoundWorld& world) const;
  // The jobs a round may place, in the last round's order, as it reads them.
  std::vector<RoundJob> QueueForRound(int64_t now_ms) const;
  // Every node of a planned assignment still takes part (alive, not
  // drained, not leaving).
  bool NodesTakePart(const Assignment& planned, const std::vector<std::string>& node_names) const;
  // A planned grant still applies: the job waits for a lease, its nodes
  // take part and have the GPUs it plans free to grant (a lease the round
  // counted as ending, say of a job that finished meanwhile, may still
  // hold them; CPU ids short of the plan are Grant's warning, as always).
  bool StillGrantable(const std::string& id, const Assignment& planned, const std::vector<std::string>& node_names) const;
  // ApplyRound's parts. `planned`: the plan's assignments by job, less
  // those a lease's fate has settled (kept, resized, left to the next
  // round), so that what remains is granted.
  using PlannedByJob = std::map<std::string, const Assignment*>;
  void BumpStarved(const std::vector<std::string>& bumped, Batch& batch, int64_t now_ms);
  // Keeps, ends or queues for resize (`resizes`: shrinking, then growing)
  // each current lease the round read as it is now.
  void SettleLeases(const RoundWorld& world, const RoundDecisions& d, PlannedByJob& planned,
                    std::vector<std::string> resizes[2], Batch& batch, int64_t now_ms);
  void SettleLease(const std::string& id, const v1::Job& job, const LeaseDecision& ld, const RoundDecisions& d,
                   PlannedByJob& planned, std::vector<std::string> resizes[2], Batch& batch, int64_t now_ms);
  // Before a round: each job awaiting dependencies whose dependencies are
  // now met may be placed from now on (Job.dependencies_met, stored); one
  // whose after_ok job ended without success is cancelled, naming it.
  void SettleDependencies(Batch& batch, int64_t now_ms);
  // DaemonState::dependency_generation_ last settled and stored, and the
  // one being settled (stored with PrepareRound's change).
  int64_t settled_generation_ = -1;
  int64_t settling_generation_ = -1;
  // Of an array with a cap ("%N"), its jobs that may be placed: those
  // holding a lease, then waiting ones in queue order up to the cap.
  // Indexed like queue_order(); true where the job is left out for the cap.
  std::vector<bool> OverArrayCaps() const;
  // Jobs the round left waiting: queued, with why.
  void QueueTheWaiting(Batch& batch, int64_t now_ms);
  // Grants `d`'s assignments that still apply (StillGrantable); the jobs
  // granted.
  std::vector<std::string> GrantPlanned(const RoundDecisions& d, const PlannedByJob& planned, bool between_rounds,
                                        Batch& batch, int64_t now_ms);
  // Each lease the round ended for its plan says who took its GPUs: the
  // jobs `granted` now on any of them, and in which order.
  void SayWhoTookTheirPlace(const RoundWorld& world, const RoundDecisions& d, const std::vector<std::string>& granted,
                            Batch& batch, int64_t now_ms);

  DaemonState& state_;
};

}  // namespace synergy::daemon
