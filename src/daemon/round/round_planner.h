#pragma once
// A round's planning, apart from the daemon's state: DaemonState copies
// what a round reads into a RoundWorld under its lock, PlanRoundWorld turns
// it into decisions without the lock (so that RPCs and status reads go on
// while the core plans), and DaemonState applies them under the lock again,
// skipping any job or node that changed meanwhile (round/apply_round.cc).
//
// Planning: the core's plan for the views (ScheduleRound), relabelled to
// keep running jobs on their nodes (sticky_servers.h); then leases that
// stay put (lease_keeping.h): a running job the plan would re-place or
// re-size but that keeps what it holds is pinned, and the others are
// planned again around what the pinned ones hold, until no new job is
// pinned (the core's loop: synergy/lease_keeping.h). On a cluster of several GPU types
// each plan is the typed round's (typed_round.h, with typed_views.h), and
// every granted lease records its service weight. Pure: the same world
// gives the same decisions.
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "daemon/round/lease_keeping.h"
#include "daemon/round/round_input.h"
#include "daemon/round/typed_views.h"
#include "synergy/mechanism.h"
#include "synergy/model_zoo.h"
#include "synergy/policy.h"
#include "synergy/round.h"
#include "synergy/typed_round.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

// A node as the round sees it: what it may give (its ids less those of
// leases the round does not manage: finished or cancelled jobs whose
// processes have not exited yet) and whether it takes part.
struct RoundNode {
  std::string name;
  v1::NodeResources capacity;  // ids less those ended leases hold; all its memory
  v1::NodeResources whole;     // all its ids and memory: its share per GPU is of these
  bool usable = false;  // alive, not drained, not leaving, not lent for profiling
  // Alive but drained or leaving: its leases are to end (a lost node's, or
  // one not re-registered since a restart, are not ended by a round).
  bool withdrawn = false;
  // Memory of ended leases' slices here, by job id (SnapshotOf takes it
  // off, slice by slice in job order with pinned leases', as one walk).
  std::vector<std::pair<std::string, double>> ended_mem;
};

// A current lease the round manages (not profiling, job not ended).
struct HeldLease {
  v1::Lease lease;
  bool checkpoints = false;  // the job uses the agent
};

struct RoundWorld {
  int64_t now_ms = 0;
  double restart_gain = 0.1;
  std::vector<RoundNode> nodes;         // by name
  std::vector<RoundJob> queue;          // the jobs the round may place, in the last round's order
  std::map<std::string, HeldLease> held;  // by job id
  // Tenants' quotas, by the index RoundJob::tenant holds, with fair share's
  // usage; pinned_gpus: what leases of jobs outside the queue hold (the
  // pinned jobs' SnapshotOf adds).
  TenantQuotas tenants;
};

// The core's input for `world` with `pinned` jobs kept as they hold: their
// views are left out and their leases' ids taken from the nodes. `first`:
// the round's first snapshot (no job pinned), whose views' carried
// speedups the replan keeps: what a job carries into the round is a fact
// of the round, not of the servers a replan has left (else a job that
// held nothing would carry its ideal on those servers, and FTF and SRTF
// would reorder the queue between two plans of one round; the simulator
// keeps them too).
struct RoundSnapshot {
  std::vector<std::string> node_names;  // index = server index
  Cluster cluster;                      // servers of no declared type are the zoo's base type
  std::vector<JobView> views;      // queue order
  std::deque<ModelSpec> measured;  // models built from measured profiles (views point here)
  // The cluster has GPU types other than the zoo's base type
  // (HasOtherGpuTypes): planned by type, with each job's views on each.
  bool typed = false;
  TypedViews by_type;
  // The world's quotas, with the GPUs of the pinned jobs' tenants.
  TenantQuotas tenants;
};
RoundSnapshot SnapshotOf(const RoundWorld& world, const ModelZoo& zoo, const std::set<std::string>& pinned = {},
                         const RoundSnapshot* first = nullptr);

struct RoundDecisions {
  bool planned = false;              // the world had servers to plan on
  std::vector<std::string> order;    // the policy's order of the queue (ids)
  std::vector<std::string> bumped;   // jobs whose starvation priority becomes 1
  Plan plan;                         // the final plan (after pinning)
  std::vector<std::string> node_names;  // the plan's server indices
  // On a cluster of several GPU types, each planned job's service weight
  // on the type it is planned on (v1::Lease::service_weight), by job id.
  std::map<std::string, double> service_weight;
  // Every held lease that is not ending: kKeep, kKeepAsHeld (pinned), kEnd.
  std::map<std::string, LeaseDecision> leases;
  size_t first_plan_size = 0;        // assignments in the first plan (for the log)
  double plan_ms = 0;                // time it took (DaemonState::PlanRound)
};

// The core's round for `snap`: ScheduleRound, or ScheduleTypedRound with
// `choice` where snap.typed; its servers relabelled to keep running jobs
// on their nodes (`held`: the current leases, by job id).
RoundResult PlanSnapshot(const RoundSnapshot& snap, int64_t now_ms, const std::map<std::string, HeldLease>& held,
                         const Policy& policy, const Mechanism& mechanism, TypeChoice choice);

RoundDecisions PlanRoundWorld(const RoundWorld& world, const ModelZoo& zoo, const Policy& policy,
                              const Mechanism& mechanism, TypeChoice choice);

// Launches between rounds (synergy/between_rounds.h): the waiting jobs of
// `world` planned around every held lease as it is, by the round's own
// replan (SnapshotOf with each held job pinned, carrying the speedups of
// the unpinned snapshot, then PlanSnapshot). No held lease is decided
// (`leases` is empty: each stays as it is), and the order and the
// starvation bumps are left to the rounds. `planned` is false when no
// waiting job asks for no more GPUs than are free (no plan is made).
RoundDecisions PlanLaunchesBetweenRounds(const RoundWorld& world, const ModelZoo& zoo, const Policy& policy,
                                         const Mechanism& mechanism, TypeChoice choice);

}  // namespace synergy::daemon
