#pragma once
// Keeps running jobs on their nodes (synergy/sticky_servers.h, with the
// daemon's leases): an undrained node would otherwise pull jobs back to it,
// for one. A slice counts as held where the job's current lease has the
// same GPUs, CPUs and memory on that node (the same GPUs for a lease that
// follows resizes: it is resized there). With no current leases it changes
// nothing.
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
