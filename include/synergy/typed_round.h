#pragma once
// One round on a cluster of several GPU types: ScheduleRound's phases
// (synergy/round.h) with a type chosen for each job between select and
// place, so that every job runs on servers of one type:
//   1-3. order, bump, select  as ScheduleRound; the runnable set is taken
//                             by GPU count over the whole cluster
//   4.   choose               a GPU type for each runnable job (TypeChoice)
//   5.   place                per type, the mechanism on that type's servers
//                             (ServersOfGpuType) with the jobs' views on it
// Each job has a view per type (gpu_type_model.h: its profile, ideal and
// iteration time there, normalised to the type's proportional share), so a
// mechanism's guarantee (never below the proportional share's throughput)
// holds on the type the job gets. Pure, as ScheduleRound.
#include <unordered_map>
#include <vector>

#include "synergy/round.h"

namespace synergy {

// How a job's GPU type is chosen.
enum class TypeChoice {
  // Heterogeneity-unaware: in the runnable set's order, the first type (in
  // the cluster's order) with the job's GPUs free.
  kFirstFit,
  // Gavel-like: by the job's throughput at the proportional share on each
  // type (its GPU-side speed there, at fixed CPU and memory per GPU).
  kGpuThroughput,
  // Synergy's: by the job's throughput at its best allocation on each type
  // (its ideal CPUs and memory there, which move with the type's speed).
  kBestAllocation,
};
const char* TypeChoiceName(TypeChoice choice);

struct TypedRoundInput {
  // `cluster` is the whole cluster; `queue` holds the views the policy
  // orders (the driver's choice of each job's reference type).
  RoundInput round;
  // Each queued job's views, one per type of round.cluster->gpu_types(),
  // each built on that type's servers; pointers owned by the caller.
  std::unordered_map<JobId, std::vector<const JobView*>> on_type;
  TypeChoice choice = TypeChoice::kFirstFit;
};

// The chosen type of each runnable job (index into gpu_types()), or -1
// where no type has its GPUs free. `free_gpus[t]`: GPUs free on type t.
// Choices by value take the jobs that gain most from their best type over
// their worst first (runnable order on ties), each its best type with its
// GPUs free, then fill what is left in runnable order, first fit.
std::vector<int> ChooseGpuTypes(const std::vector<const JobView*>& runnable,
                                const std::unordered_map<JobId, std::vector<const JobView*>>& on_type,
                                std::vector<int> free_gpus, TypeChoice choice);

// The round: RoundResult::plan's slices index round.cluster's servers.
RoundResult ScheduleTypedRound(const TypedRoundInput& input, const Policy& policy, const Mechanism& mechanism);

}  // namespace synergy
