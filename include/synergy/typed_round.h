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
#include <optional>
#include <string>
#include <string_view>
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
  // By the three-dimensional program (type_program.h): types and
  // allocations chosen together over each type's pooled resources.
  kProgram,
};
const char* TypeChoiceName(TypeChoice choice);
// The choice of that name (TypeChoiceName), or nullopt; and every name, in
// the enum's order.
std::optional<TypeChoice> TypeChoiceNamed(std::string_view name);
std::vector<std::string> TypeChoiceNames();

struct TypedRoundInput {
  // `cluster` is the whole cluster; `queue` holds the views the policy
  // orders (the driver's choice of each job's reference type).
  RoundInput round;
  // Each queued job's views, one per type of round.cluster->gpu_types(),
  // each built on that type's servers; pointers owned by the caller.
  std::unordered_map<JobId, std::vector<const JobView*>> on_type;
  TypeChoice choice = TypeChoice::kFirstFit;
};

// A job's throughput at the share on each type (its views, one per type),
// relative to its best at the share on any type (1 on its fastest): the
// unit in which type choices compare jobs across types.
std::vector<double> RelativeThroughputAtShare(const std::vector<const JobView*>& views);

// What a type has for a round's choice: its GPUs free and its share of
// one GPU (its CPUs and memory are share x GPUs: a round starts empty).
struct TypeRoom {
  int gpus = 0;
  Resources share_per_gpu;
};

// The chosen type of each runnable job (index into gpu_types()), or -1
// where no type has its GPUs free.
//   kFirstFit: in runnable order, the first type with the job's GPUs free.
//   kGpuThroughput, kBestAllocation: greedy by regret. A job's value on a
//     type is its throughput there relative to its best at the share on
//     any type (so that jobs of any size and speed compare); the job whose
//     best type beats its second best by most is placed first (runnable
//     order on ties), on its best type, until none is left. By GPU
//     throughput the value is the one at the share. By best allocation it
//     is the one at the job's ideal CPUs and memory there where the type
//     can fund them, as TUNE would: from what jobs placed there before it
//     leave of their share (a language model's idle CPUs), else at the
//     share. So CPU-hungry jobs go to a fast type as far as its
//     insensitive jobs feed them, and no further.
std::vector<int> ChooseGpuTypes(const std::vector<const JobView*>& runnable,
                                const std::unordered_map<JobId, std::vector<const JobView*>>& on_type,
                                const std::vector<TypeRoom>& rooms, TypeChoice choice);

// The round: RoundResult::plan's slices index round.cluster's servers.
// With kProgram, plan.solver carries the program's bound and optimum and,
// as `realised`, the plan's throughput in the same unit.
RoundResult ScheduleTypedRound(const TypedRoundInput& input, const Policy& policy, const Mechanism& mechanism);

}  // namespace synergy
