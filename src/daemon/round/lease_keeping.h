#pragma once
// Leases that stay put, in synergyd's terms: the core's rule
// (synergy/lease_fate.h) applied to a v1::Lease. A lease's nodes are named;
// a node not in this round's `node_names` has left the round. The plan's
// fractional CPUs are compared as the whole CPU ids a grant would give
// (WholeCpus), and a job follows resizes where Resizable(lease).
#include <string>
#include <vector>

#include "synergy/lease_fate.h"
#include "synergy/plan.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

using synergy::LeaseDecision;
using synergy::LeaseFate;

// What a second held under `lease` is worth on the zoo's base type: its
// stored service_weight within [kMinServiceWeight, kMaxServiceWeight]
// (typed_views.h); 1 where none is stored (one GPU type) or it is not a
// positive finite number. The one reading of the field.
double ServiceWeightOf(const v1::Lease& lease);

// Whether `lease` can be amended in place: its agent follows resizes and it
// has one rank (one agent to confirm, one node to change).
bool Resizable(const v1::Lease& lease);

// What to do with `held` (a current lease, not ending) given the round's
// `planned` assignment for its job (nullptr: not planned). `checkpoints`:
// the job can resume from a checkpoint (it uses the agent).
// `planned_weight`: the service weight the plan's type gives it where the
// plan moves it to another GPU type; 0 where it does not (synergy::
// DecideLease then compares on the held type).
LeaseDecision DecideLease(const v1::Lease& held, const Assignment* planned, bool checkpoints,
                          const std::vector<std::string>& node_names, double restart_gain,
                          double planned_weight = 0);

}  // namespace synergy::daemon
