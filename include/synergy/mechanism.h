#pragma once
// A Mechanism turns the ordered runnable set into allocations: what each job
// gets and where. It never reorders jobs and never reads a clock.
//
// Contract (checked by tests/unit/placement_properties_test.cc):
//  - every job it places gets exactly its GPUs, on servers that have them;
//  - no server is over-committed in any dimension;
//  - a job is offered only while its GPUs fit the GPUs still free;
//  - TUNE, TUNE-graded and OPT never leave a job below its proportional
//    throughput; TUNE and TUNE-graded use every GPU that PROPORTIONAL would.
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "synergy/job.h"
#include "synergy/placement_state.h"

namespace synergy {

// The runnable set as a mechanism takes it, one job at a time and in order.
// A mechanism never needs the jobs that cannot fit: once no GPU is free it
// stops asking, so a long queue costs only the jobs it looks at.
class Candidates {
 public:
  virtual ~Candidates() = default;
  // The next job whose GPU count is at most `max_gpus` (skipping the larger
  // ones before it), or nullptr when none is left. `max_gpus` never grows
  // from one call to the next: free GPUs never come back within a round.
  virtual const JobView* NextFitting(int max_gpus) = 0;
};

// Candidates from a list.
class ListedCandidates final : public Candidates {
 public:
  explicit ListedCandidates(std::span<const JobView* const> jobs) : jobs_(jobs) {}
  const JobView* NextFitting(int max_gpus) override {
    while (next_ < jobs_.size()) {
      const JobView* job = jobs_[next_++];
      if (job->gpus <= max_gpus) return job;
    }
    return nullptr;
  }

 private:
  std::span<const JobView* const> jobs_;
  size_t next_ = 0;
};

class Mechanism {
 public:
  virtual ~Mechanism() = default;
  virtual std::string_view name() const = 0;
  // PROPORTIONAL does not; GREEDY and TUNE do (policies then divide
  // remaining time by the speedup).
  virtual bool uses_speedup() const = 0;
  // TUNE wants a count-fit-first runnable set offered largest job first.
  virtual bool prefers_large_jobs_first() const { return false; }

  // Places each candidate, in order, whose GPU count fits state.free_gpus().
  virtual void PlaceFrom(Candidates& candidates, PlacementState& state) const = 0;
  void Place(std::span<const JobView* const> candidates, PlacementState& state) const {
    ListedCandidates listed(candidates);
    PlaceFrom(listed, state);
  }
};

// Settings of the mechanisms that have any.
struct MechanismOptions {
  // OPT's budget for each of its two solves per round, counted in work,
  // not time, so that the same inputs give the same plan on any machine:
  // simplex iterations of the LP relaxation, then branch-and-bound
  // subproblems. A solve that runs out uses the best solution it has; a
  // round without one uses TUNE's plan (counted).
  int opt_simplex_iterations = 100000;
  int opt_branch_nodes = 2000;
  // A wall-clock safety net per solve, ms (0: none). Only the daemon sets
  // one (a round must end); it makes a plan depend on the machine's speed
  // when it strikes, which SolverStats::hit_budget reports.
  int opt_time_limit_ms = 0;
  // OPT: one integer variable per (group of interchangeable jobs, option),
  // counting the jobs that take it. false: the paper's form, one binary
  // variable per (job, option); the same optimum, found far more slowly
  // (kept to measure that).
  bool opt_group_jobs = true;
};

// The whole-job demand the `requested` mechanism gives a job of `gpus` GPUs
// that asked for `cpus` and `mem_gb` (each 0 where not recorded: then the
// cluster's smallest proportional share per GPU, Cluster::
// smallest_share_per_gpu, times its GPUs), with its share of storage.
Resources RequestedDemand(int gpus, double cpus, double mem_gb, const Cluster& cluster);

// Registry: "proportional", "greedy", "tune", "tune-graded", "opt",
// "requested".
absl::StatusOr<std::unique_ptr<Mechanism>> MakeMechanism(std::string_view name,
                                                         const MechanismOptions& options = {});
std::vector<std::string> MechanismNames();

}  // namespace synergy
