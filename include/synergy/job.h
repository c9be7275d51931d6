#pragma once
// What the scheduling core knows about a job at the start of a round.
//
// A JobView is a snapshot that a driver (simulator or daemon) builds from its
// own records; the core never changes it. Times are seconds on the driver's
// clock (virtual in the simulator, wall in the daemon).
#include <cstdint>

#include "synergy/model_zoo.h"
#include "synergy/resources.h"

namespace synergy {

using JobId = int64_t;

struct JobView {
  // What every round reads of every waiting job (its order, class, bump and
  // GPUs) comes first, within a cache line or two: at 131,072 waiting jobs
  // a round's passes over the queue are bound by memory (issue 20).
  JobId id = 0;
  int gpus = 1;                   // GPUs the user asked for (>= 1)
  int priority = 0;               // higher runs first (the 1000-hour bump sets 1)
  // The user's priority class (daemon job specs; the simulator's jobs are
  // all 0). It ranks above the policy's whole order, bump included.
  int priority_class = 0;
  // Its tenant's index in the round's TenantQuotas (tenant_quotas.h); -1:
  // none (the simulator's jobs without a tenant, synergyd's without one).
  int tenant = -1;
  // Its user's index in the round's fair-share usage (TenantQuotas::
  // user_usage); -1: none.
  int user = -1;
  // The job is known only by its GPUs: its ideal is the proportional share
  // of whichever servers it lands on (ideal_demand is the cluster-wide
  // figure), placed with PlacementState::FitShare.
  bool asks_for_share = false;
  // It runs now and cannot checkpoint (a plain process): ending its lease
  // loses all its work, so it goes first within its priority class (only a
  // higher class, or its driver's drain, hold, cancel or node loss, ends
  // it; LAS, SRTF and FTF do not time-slice it). Never set in
  // reference-compatible runs (every job there checkpoints).
  bool runs_without_checkpoint = false;
  double arrival_s = 0;              // when the job was submitted
  double last_execution_end_s = -1;  // end of its last lease; -1 if never run
  Resources ideal_demand;            // whole-job demand at its best throughput
  double ideal_speedup = 1.0;        // throughput at ideal_demand (proportional = 1)
  double iteration_time_s = 1.0;     // seconds per iteration at proportional share
  double total_iterations = 0;
  double remaining_iterations = 0;
  double attained_service_s = 0;  // seconds the job has held its GPUs
  // Speedup the job ran at in its last round (1 when it was given the
  // proportional share). The reference orders SRTF and FTF on this value,
  // which is a round stale; reference-compatible mode does the same.
  double last_round_speedup = 1.0;
  double placement_penalty = 1.0;  // throughput factor when split over servers
  // The measured profile (one GPU); mechanisms that grade allocations
  // (tune-graded, opt) read it. Null: the job is known only by its ideal
  // demand, and runs at ideal or at the proportional share.
  const SensitivityProfile* profile = nullptr;
  // What the job's submitter asked for beside its GPUs, as a trace recorded
  // it (whole job; 0 in a dimension: not recorded). Only the `requested`
  // mechanism reads it: the allocation a cluster without Synergy gives.
  double requested_cpus = 0;
  double requested_mem_gb = 0;
};

}  // namespace synergy
