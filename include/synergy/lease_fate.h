#pragma once
// Leases that stay put: what becomes of a running job's allocation when a
// round's plan differs from it. The core plans every round afresh, so a
// running job's planned place and size move whenever anything else moves
// (a server joins or leaves, the consolidating placement prefers another
// server, TUNE gives a peer's cores to a newcomer). On a real cluster a
// changed allocation is a stop and a restart, so a running job keeps what
// it holds unless ending it is worth it:
//  - not in the plan: the policy preempted it, the lease ends;
//  - a server of it left the round: it ends;
//  - the plan moves its GPUs: a job that checkpoints ends when the plan
//    spans fewer servers (consolidation is worth a restart), or, on a
//    cluster of several GPU types, when the plan's rate on its new type
//    beats what it holds by `restart_gain` (both in the base type's units:
//    a job held on a K80 is not kept there when a V100 is planned for it);
//    otherwise it keeps its place;
//  - the same place with other CPUs or memory, for a job that follows
//    resizes: it is amended in place (no restart), growing or shrinking;
//  - the same place otherwise: a job that cannot checkpoint (a plain
//    process) keeps what it holds, so it is never restarted to be re-placed
//    and its memory limit is never cut under it; a job that checkpoints
//    ends if the plan shrinks it (its cores are planned for someone else)
//    or grows it by at least `restart_gain` in throughput, and keeps what
//    it holds for a smaller gain.
// A driver plans the other jobs around the leases kept as held (synergyd:
// daemon/round/round_planner.h; synergy-sim with restart costs), so the plan and
// the leases never disagree. Pure.
#include <string>
#include <vector>

#include "synergy/plan.h"

namespace synergy {

enum class LeaseFate {
  kKeep,          // the plan gives it exactly what it holds
  kKeepAsHeld,    // the plan differs, but not enough to restart it
  kResize,        // the same GPUs on the same servers, amended to the plan's CPUs and memory
  kEnd,           // ended (preempted, moved, or re-sized for a gain)
};

struct LeaseDecision {
  LeaseFate fate = LeaseFate::kEnd;
  std::string why;  // for kEnd, kKeepAsHeld and kResize: said in the job's events
};

// What a running job holds, in the round's terms.
struct HeldAllocation {
  // Servers of the round's cluster (-1: a server no longer in the round),
  // with the GPUs, CPUs and memory held there, in the units the plan is
  // compared in (the caller rounds the plan as it grants).
  Slices slices;
  double speedup = 1;       // what the plan expected of it when granted
  // On a cluster of several GPU types, what a unit of `speedup` is worth in
  // the base type's units on the type it holds (its service weight there);
  // 1 on one type.
  double weight = 1;
  bool checkpoints = false;  // it can resume from a checkpoint
  bool resizable = false;    // it follows resizes in place
};

// What to do with `held` given the round's `planned` assignment for its job
// (nullptr: not planned); `planned_weight`: HeldAllocation::weight on the
// type the plan puts it on, where that is another type than it holds (else
// held.weight, or leave it out on one type).
LeaseDecision DecideLease(const HeldAllocation& held, const Assignment* planned, double restart_gain,
                          double planned_weight = 1);

}  // namespace synergy
