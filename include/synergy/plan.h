#pragma once
// The result of a round: for each job that runs, what it gets on which server.
#include <vector>

#include "absl/container/inlined_vector.h"
#include "synergy/job.h"
#include "synergy/resources.h"

namespace synergy {

// What one job holds on one server.
struct Slice {
  int server = 0;  // index into Cluster::servers()
  Resources resources;
};

// A job's slices, held in place for a job on one server (most jobs): a
// round at tens of thousands of GPUs allocated a list per placed job.
using Slices = absl::InlinedVector<Slice, 1>;

struct Assignment {
  JobId job = 0;
  Slices slices;  // ascending server index, one per server
  // Throughput relative to the proportional share at this allocation: the
  // job's ideal speedup when it holds its ideal demand, 1 otherwise.
  double speedup = 1.0;
  bool at_ideal = false;

  Resources Total() const;
  int num_servers() const { return static_cast<int>(slices.size()); }
};

// What an optimising mechanism (OPT) reports about its round.
struct SolverStats {
  bool solved = false;           // an optimisation ran this round
  double lp_bound = 0;           // LP relaxation of the pooled program: sum of speedups
  double pooled_optimum = 0;     // its integral optimum (the super-machine plan)
  double realised = 0;           // sum of speedups of the plan actually placed
  bool hit_budget = false;       // a solve stopped at its work budget (or the wall-clock net)
  bool fell_back = false;        // the round used TUNE's plan instead
  int split_jobs = 0;            // jobs placed across more than one server
  // Jobs placed below the pooled program's choice because it did not pack
  // onto the servers with whole GPUs: the cost of integrality.
  int stepped_down = 0;
};

struct Plan {
  std::vector<Assignment> assignments;  // in the order the jobs were placed
  // Jobs TUNE reverted peers for and still could not place (the reference
  // exits here; we leave the job queued and count it).
  std::vector<JobId> unplaced_after_revert;
  SolverStats solver;
  const Assignment* Find(JobId job) const;
};

}  // namespace synergy
