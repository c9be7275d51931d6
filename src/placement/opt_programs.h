#pragma once
// The two integer programs of Synergy-OPT (the paper's section 4.1), solved
// with GLPK. Pure functions of their inputs; no GLPK type leaks out.
#include <utility>
#include <vector>

#include "mechanisms.h"

namespace synergy::mechanisms {

// How much work a solve may do (MechanismOptions' opt_* fields).
struct SolveBudget {
  int simplex_iterations = 100000;
  int branch_nodes = 2000;
  int time_limit_ms = 0;  // 0: no wall clock
};

// Program 1, the super-machine: every job picks exactly one option (per-GPU
// point) so that the jobs' CPUs and memory fit the pooled free capacity,
// maximising the sum of speedups. Every option is at or above proportional
// throughput, so each job keeps at least its proportional throughput.
struct PooledJob {
  int gpus = 1;
  std::vector<Option> options;
};
struct PooledSolution {
  bool ok = false;              // an integral solution was found
  bool hit_budget = false;
  double lp_bound = 0;          // the LP relaxation's optimum
  double optimum = 0;           // the integral solution's objective
  std::vector<int> choice;      // per job: index into its options
};
// `group_jobs`: see MechanismOptions::opt_group_jobs.
PooledSolution SolvePooled(const std::vector<PooledJob>& jobs, const Resources& capacity,
                           const SolveBudget& budget, bool group_jobs = true);

// Program 1 across GPU types (the paper's third dimension): every job
// picks a type and an option there so that each type's pooled GPUs, CPUs
// and memory fit (no solution when they cannot hold every job),
// maximising the sum over jobs of the option's speedup (relative to that
// type's share) times the job's weight on the type (its throughput at that
// share relative to its best at the share on any type): throughput in one
// unit across types.
struct TypedPooledJob {
  int gpus = 1;
  std::vector<std::vector<Option>> options;  // per type; empty: not on that type
  std::vector<double> weight;                // per type
};
struct TypedPooledSolution {
  bool ok = false;
  bool hit_budget = false;
  double lp_bound = 0;
  double optimum = 0;
  std::vector<int> type;    // per job; -1: not placed
  std::vector<int> option;  // per job: index into options[type]
};
TypedPooledSolution SolvePooledByType(const std::vector<TypedPooledJob>& jobs, const std::vector<Resources>& capacity,
                                      const SolveBudget& budget);

// Program 2, the mapping: integral GPUs of each job on real servers, each
// server's free GPUs, cores, memory and storage respected, minimising the
// number of (job, server) pairs, i.e. the jobs split across servers.
struct PackedJob {
  int gpus = 1;
  Resources per_gpu;
};
struct FreeServer {
  int server = 0;
  Resources free;
};
struct Packing {
  bool ok = false;
  bool hit_budget = false;
  // Per job: (server, GPUs there), ascending server.
  std::vector<std::vector<std::pair<int, int>>> gpus_on;
};
// `incumbent` (same shape as Packing::gpus_on) is a known packing that
// branch and bound starts from; the result is never worse than it.
Packing SolvePacking(const std::vector<PackedJob>& jobs, const std::vector<FreeServer>& servers,
                     const std::vector<std::vector<std::pair<int, int>>>& incumbent,
                     const SolveBudget& budget);

}  // namespace synergy::mechanisms
