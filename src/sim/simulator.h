#pragma once
// The trace-driven, round-based simulator: the scheduling core on a virtual
// clock. Each round (default 300 s) it admits arrivals, ends the previous
// round's leases, asks the core for a plan and books each placed job's
// progress for the round.
//
// Two execution models (docs/simulator.md lists every difference):
//  - reference-compatible: the reference simulator's behaviour, quirks kept,
//    so its per-job JCTs are reproduced exactly;
//  - default: the same scheduler with those quirks fixed (exact finish times,
//    fractional progress kept, a replay runs every job of its trace).
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/workload.h"
#include "synergy/cluster.h"
#include "synergy/mechanism.h"
#include "synergy/model_zoo.h"
#include "synergy/placement_state.h"
#include "synergy/policy.h"
#include "synergy/round.h"
#include "synergy/tenant_quotas.h"
#include "synergy/typed_round.h"

namespace synergy::sim {

struct SimProgress {
  double now_s = 0;
  int64_t finished = 0;  // measured jobs done so far
  int64_t measured = 0;  // measured jobs in all
  int queued = 0;
};

struct SimConfig {
  const Cluster* cluster = nullptr;
  const ModelZoo* zoo = nullptr;
  const Policy* policy = nullptr;
  const Mechanism* mechanism = nullptr;
  double round_s = 300;
  bool reference_compatible = false;
  GpuPlacement gpu_placement = GpuPlacement::kConsolidate;
  // Restart costs (default mode; reference-compatible charges nothing, as
  // the reference): a job whose lease ends and a new one starts (resumed
  // after a preemption, or moved) loses `restart_cost_s` of progress
  // (checkpoint, process start, restore, warm-up), charged from the round
  // it starts in, and on into later rounds when longer. A change of CPUs or
  // memory on the same GPUs of the same servers is a resize: free with
  // `resize_in_place` (synergyd amends the lease of a job that follows
  // resizes), else a restart. The first start is free.
  double restart_cost_s = 0;
  bool resize_in_place = false;
  // With `keep_leases` (implied by a restart cost or resizes in place),
  // running jobs keep their
  // leases as synergyd keeps them (synergy/lease_fate.h: a job the plan
  // would move, or grow by less than `restart_gain`, keeps what it holds
  // and the others are planned around it: synergy/lease_keeping.h), and
  // stay on their servers where an identical one would do. Otherwise
  // every round is planned afresh, as the reference's simulator does.
  bool keep_leases = false;
  double restart_gain = 0.1;
  // Default mode: launches between rounds (synergy/between_rounds.h).
  // When a job finishes mid-round its resources are free from its finish
  // time, and at each finish or arrival the waiting jobs are placed on
  // what the running leases leave free, to run until the next round. The
  // CLI's default; reference-compatible runs never launch between rounds.
  // Runs with it use the sorted round (standing_queue is not used).
  bool launch_between_rounds = false;
  // Keep the queue in order between rounds (synergy/standing_queue.h)
  // where the policy allows it (FIFO, SRTF, LAS) and nothing needs the
  // whole ordered queue each round (one GPU type, no lease keeping, no
  // on_round): the same results, at a cost that grows with the work rather
  // than with the waiting queue. false: every round sorts the whole queue
  // (tests compare the two).
  bool standing_queue = true;
  // Called after every round when set (the CLI draws a progress line).
  std::function<void(const SimProgress&)> progress;
  // Called with every round's input and result when set (tests compare the
  // simulator's plans with the daemon's).
  std::function<void(const RoundInput&, const RoundResult&)> on_round;
  // With kept leases, every round's outcome of the core's replan loop
  // (synergy/lease_keeping.h): the final plan of the jobs not kept as they
  // hold, and the jobs kept so, in id order (tests compare them with
  // synergyd's RoundDecisions).
  std::function<void(const Plan& replanned, const std::vector<JobId>& kept_as_held)> on_leases_kept;
  // Each assignment a round books (after kept leases), with the round's time.
  std::function<void(double time_s, const Assignment&)> on_booked;
  // A cluster of several GPU types, or of one that is not the zoo's base
  // type (default mode only): each job has a view per type
  // (synergy/gpu_type_model.h), rounds are ScheduleTypedRound's with this
  // choice of type, and a job runs at its profile on the type it holds.
  // Policies see each job in the reference type's units (the zoo's base
  // type, else the cluster's first): its iteration time there, and its
  // attained service and last speedup scaled by the held type's rate at
  // the share over the reference's, so that LAS, SRTF and FTF compare
  // progress across types.
  TypeChoice type_choice = TypeChoice::kFirstFit;
  // Tenants' GPU quotas (synergy/tenant_quotas.h), by the index of the
  // trace's tenant name in tenant_names (a tenant not there has none), as
  // synergyd's auth.tenants. Empty: none. Rounds with quotas sort the
  // whole queue (no standing queue).
  std::vector<std::string> tenant_names;
  TenantQuotas tenants;
  // Fair share (synergyd's fair_share_half_life): > 0 orders each round's
  // queue by tenants' and then users' GPU-seconds held, halving every
  // this many seconds (TenantQuotas::usage; a tenant's over its quota).
  double fair_share_half_life_s = 0;
};

struct JobRecord {
  JobSpec spec;
  double start_s = -1;   // first round it held GPUs
  double finish_s = -1;  // -1 when it never finished
  int restarts = 0;      // leases that ended and started again (see restart_cost_s)
  int resizes = 0;       // CPU or memory changes on the same GPUs, in place
  int gpu_type = -1;     // heterogeneous clusters: the type of its last round (Cluster::gpu_types)
  bool timed_out = false;  // it ran for its time limit (JobSpec::time_limit_s) before finishing
  double jct_s() const { return finish_s - spec.arrival_s; }
};

// Resources held over time (resource-seconds).
struct ResourceSeconds {
  double gpus = 0;
  double cpus = 0;
  double mem_gb = 0;
  void Add(const Resources& r, double seconds) {
    gpus += r.gpus * seconds;
    cpus += r.cpus * seconds;
    mem_gb += r.mem_gb * seconds;
  }
};

// The cluster as one round left it, for utilisation over time.
struct RoundSample {
  double time_s = 0;
  int running = 0;
  int queued = 0;
  Resources allocated;
  double throughput = 0;  // sum of the running jobs' speedups
  std::vector<int> gpus_by_type;  // heterogeneous clusters: GPUs allocated per type
  // OPT only (solver.solved): its pooled LP bound, jobs stepped down from
  // the pooled choice, and whether TUNE's plan was used.
  SolverStats solver;
  // Default mode with launches between rounds, in resource-seconds until
  // the next round: what jobs launched since this round's start were
  // given, and what jobs that finished in it no longer held (`allocated`
  // counts them to the round's end). Zero otherwise.
  ResourceSeconds launched_s;
  ResourceSeconds released_s;
  // The same GPU-seconds per type (heterogeneous clusters): launched less
  // released, by Cluster::gpu_types index.
  std::vector<double> launched_less_released_gpu_s_by_type;
};

struct SimResult {
  std::vector<JobRecord> jobs;  // measured jobs, by id; finished or not
  std::vector<RoundSample> rounds;
  double first_schedule_s = 0;
  double end_s = 0;  // the time the run stopped
  int64_t unfinished = 0;
  // Rounds where TUNE reverted peers and still could not place the job
  // (the reference exits there; we count and go on).
  int64_t unplaced_after_revert = 0;
  // OPT's rounds: how many solved, fell back to TUNE, hit a time limit, and
  // the sums of its pooled LP bound and of the throughput it realised.
  int64_t solver_rounds = 0;
  int64_t solver_fallbacks = 0;
  int64_t solver_budget_rounds = 0;
  int64_t solver_stepped_down_rounds = 0;  // some job below the pooled choice
  double solver_lp_bound_sum = 0;
  double solver_realised_sum = 0;
  // Over the measured jobs (JobRecord's): restarts charged and resizes in place.
  int64_t restarts = 0;
  int64_t resizes = 0;
  // Default mode, over the run: GPU-seconds in which a job ran (held GPUs
  // and had not finished), GPU-seconds no job ran on while some job
  // waited (admitted, unfinished, holding nothing), and the jobs launched
  // between rounds. Zero in reference-compatible runs.
  double round_s = 0;  // the run's round length
  double busy_gpu_s = 0;
  double idle_gpu_s_while_waiting = 0;
  int64_t launches_between_rounds = 0;
};

// Replays `jobs` (arrival order) and measures all of them.
absl::StatusOr<SimResult> RunTrace(const SimConfig& config, const std::vector<JobSpec>& jobs);

// Generates jobs until every job with an id in [measure_from, measure_to)
// has finished. `on_generated`, when set, sees every job generated.
absl::StatusOr<SimResult> RunGenerated(const SimConfig& config, WorkloadGenerator& generator,
                                       JobId measure_from, JobId measure_to,
                                       const std::function<void(const JobSpec&)>& on_generated);

}  // namespace synergy::sim
