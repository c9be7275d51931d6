#pragma once
// Keeps running jobs where they are. The core plans every round from an
// empty cluster (as the paper's simulator does, where moving costs
// nothing), so a job can be planned onto a server identical to the one it
// runs on, and on a real cluster that is a checkpoint, a stop and a
// restart for nothing (an undrained node would pull jobs back to it, for
// one). Servers of identical capacity are interchangeable: swapping the
// whole contents of two of them keeps the plan feasible and every job's
// allocation. StickToCurrentNodes relabels the plan's servers, within
// groups of identical capacity, so that as many slices as possible land on
// the node their job's current lease holds; nothing else in the plan
// changes. With no current leases it changes nothing.
#include <map>
#include <string>
#include <vector>

#include "synergy/cluster.h"
#include "synergy/plan.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

// `current`: job id ("j-000012") -> its current lease (kept only if not
// ending). Returns how many servers were relabelled.
int StickToCurrentNodes(Plan& plan, const Cluster& cluster, const std::vector<std::string>& node_names,
                        const std::map<std::string, const v1::Lease*>& current);

}  // namespace synergy::daemon
