#pragma once
// Keeps running jobs on the servers they run on. The core plans every round
// from an empty cluster (as the paper's simulator does, where moving costs
// nothing), so a job can be planned onto a server identical to the one it
// runs on; on a real cluster, or a simulator that charges restarts, that is
// a checkpoint, a stop and a restart for nothing. Servers of identical
// capacity and GPU type are interchangeable: swapping the whole contents of
// two of them keeps the plan feasible and every job's allocation and type.
// StickToCurrentServers relabels the plan's servers, within groups of
// identical capacity and type, so that as many slices as possible land
// where `holds` says their job runs now; nothing else in the plan changes.
// Pure and deterministic.
#include <functional>

#include "synergy/cluster.h"
#include "synergy/plan.h"

namespace synergy {

// `holds(job, server, slice)`: the job runs on `server` now with what it
// would call the same slice (the daemon: the same GPUs, CPUs and memory;
// the simulator: the same GPUs, so that a resize stays in place). Returns
// how many servers were relabelled.
int StickToCurrentServers(Plan& plan, const Cluster& cluster,
                          const std::function<bool(JobId job, int server, const Slice& slice)>& holds);

}  // namespace synergy
