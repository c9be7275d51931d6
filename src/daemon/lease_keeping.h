#pragma once
// Leases that stay put. The core plans every round afresh, so a running
// job's planned place and size move whenever anything else moves (a node
// joins, drains or leaves and the GPU-proportional share changes; the
// consolidating placement prefers the new node; TUNE gives a peer's cores
// to a newcomer). On a real cluster a changed allocation is a stop and a
// restart, so the daemon keeps a running job's lease unless ending it is
// worth it:
//  - not in the plan: the policy preempted it, the lease ends;
//  - a node of the lease left the round (drained, lost, lent for
//    profiling): it ends;
//  - the plan moves its GPUs: a job that checkpoints ends when the plan
//    spans fewer nodes (consolidation is worth a restart); otherwise it
//    keeps its place;
//  - the same place with other CPUs or memory, for a job that follows
//    resizes (its agent said so; one rank): the lease is amended in place
//    (daemon_resize.cc), with no restart, growing or shrinking;
//  - the same place with other CPUs or memory otherwise: a job that cannot
//    checkpoint (a plain process) keeps what it holds, so it is never
//    restarted to be re-placed and its memory limit is never cut under it;
//    a job that checkpoints ends if the plan shrinks it (its cores are
//    planned for someone else) or grows it by at least `restart_gain` in
//    throughput, and keeps what it holds for a smaller gain.
// The round then plans the other jobs around the leases kept as held
// (daemon_round.cc), so the plan and the leases never disagree.
#include <string>
#include <vector>

#include "synergy/plan.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

enum class LeaseFate {
  kKeep,          // the plan gives it exactly what it holds
  kKeepAsHeld,    // the plan differs, but not enough to restart it
  kResize,        // the same GPUs on the same node, amended to the plan's CPUs and memory
  kEnd,           // ended (preempted, moved, or re-sized for a gain)
};

struct LeaseDecision {
  LeaseFate fate = LeaseFate::kEnd;
  std::string why;  // for kEnd and kKeepAsHeld: said in the job's events
};

// What to do with `held` (a current lease, not ending) given the round's
// `planned` assignment for its job (nullptr: not planned). `checkpoints`:
// the job can resume from a checkpoint (it uses the agent). Resizes in
// place where Resizable(held).
// Whether `lease` can be amended in place: its agent follows resizes and it
// has one rank (one agent to confirm, one node to change).
bool Resizable(const v1::Lease& lease);

LeaseDecision DecideLease(const v1::Lease& held, const Assignment* planned, bool checkpoints,
                          const std::vector<std::string>& node_names, double restart_gain);

}  // namespace synergy::daemon
