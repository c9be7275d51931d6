#pragma once
// The paper's program 1 in three dimensions: every runnable job's GPU type
// and allocation chosen together, over each type's pooled GPUs, CPUs and
// memory (a super-machine per type), maximising the jobs' summed
// throughput in one unit across types: each option's speedup (relative to
// its type's share, at or above 1: mechanisms.h's options) times the job's
// RelativeThroughputAtShare on that type. Solved with GLPK within a work
// budget, so the same inputs give the same choice on any machine.
//
// Its LP relaxation bounds what any plan of those jobs can reach: a plan of
// TUNE, TUNE-graded or OPT per type, under any choice of types, is a point
// of the program (each job on one type at an option at or above its share
// there, every type's servers within their capacity, so their sum too).
#include <unordered_map>
#include <vector>

#include "synergy/cluster.h"
#include "synergy/job.h"

namespace synergy {

struct TypeProgramChoice {
  bool solved = false;      // an integral solution was found
  bool hit_budget = false;  // a solve stopped at its work budget
  double lp_bound = 0;      // the LP relaxation's optimum
  double optimum = 0;       // the integral solution's
  std::vector<int> type;    // per runnable job (all -1 when not solved)
};

// `types[t]`: the servers of type t as a cluster (ServersOfGpuType), all
// free; `on_type`: each runnable job's views, one per type. Every job is
// given a type: the runnable set must fit the types' GPUs (a typed round's
// does, taken first fit).
TypeProgramChoice ChooseGpuTypesByProgram(const std::vector<const JobView*>& runnable,
                                          const std::unordered_map<JobId, std::vector<const JobView*>>& on_type,
                                          const std::vector<const Cluster*>& types, int simplex_iterations = 100000,
                                          int branch_nodes = 2000);

}  // namespace synergy
