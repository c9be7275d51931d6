#pragma once
// How the three programs write job states and id lists, so that logs,
// tables and cgroup files agree.
#include <string>
#include <vector>

#include "synergy/v1/synergy.pb.h"

namespace synergy::service {

// JOB_STATE_RUNNING -> "running".
std::string JobStateName(v1::JobState state);

// {3, 0, 1} -> "0-1,3" (sorted, duplicates dropped, runs as ranges; "" when
// empty): the cpuset list format, also used in logs and tables.
std::string FormatIdList(std::vector<int> ids);

// "n1 gpus 0 cpus 0-1 (2) mem 12.0 GB; n2 ... (speedup 1.00)": a lease in
// synergyd's events and log; "(speedup 1.00, service weight 0.45)" when the
// lease's service is weighted (a slower GPU type than the base).
std::string DescribeLease(const v1::Lease& lease);

}  // namespace synergy::service
