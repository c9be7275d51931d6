#pragma once
// The placement mechanisms, one per file; the registry (registry.cc) names
// them. Helpers shared by all of them live here.
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "synergy/mechanism.h"

namespace synergy::mechanisms {

std::unique_ptr<Mechanism> MakeProportional();
std::unique_ptr<Mechanism> MakeGreedy();
std::unique_ptr<Mechanism> MakeTune();
std::unique_ptr<Mechanism> MakeTuneGraded();
std::unique_ptr<Mechanism> MakeOpt(const MechanismOptions& options);
std::unique_ptr<Mechanism> MakeRequested();

// Offers `place(job)` each candidate whose GPUs fit the free ones, in
// order. Free GPUs never come back within a round, and every job asks for
// one or more: once none is free, no later candidate is offered.
template <typename Place>
void ForEachFitting(Candidates& candidates, const PlacementState& state, Place place) {
  while (state.free_gpus() > 0) {
    const JobView* job = candidates.NextFitting(state.free_gpus());
    if (job == nullptr) return;
    place(*job);
  }
}

// True when the demand exceeds the proportional share in some dimension, so
// that falling back to proportional frees something (the reference's
// _make_fair_share test).
// Measured against the least share any server gives (Cluster::
// smallest_share_per_gpu), the cluster's share when it is uniform.
bool AboveProportional(const Resources& demand, const Cluster& cluster);

// Where a job's GPUs will come from when peers must make room: a multi-GPU
// job takes the first server (by index) with all its GPUs free; otherwise
// servers with the fewest free GPUs first (ties by index) until enough GPUs
// are found. Pairs of (server, GPUs there).
std::vector<std::pair<int, int>> ServersForGpus(int gpus, const PlacementState& state);

// One allocation a graded mechanism may give a job: a per-GPU point and the
// job's speedup there (throughput relative to the proportional share).
struct Option {
  Resources per_gpu;  // gpus = 1
  double speedup = 1;
  bool ideal = false;  // the job's ideal demand, at the zoo's ideal speedup
};

// The options that keep `job` at or above its proportional throughput: its
// ideal demand (the point TUNE gives, at the speedup TUNE credits), the
// profile's grid points whose throughput is at least the throughput at the
// cluster's proportional share, and the proportional share itself (speedup
// 1). Points that the largest server could not give the job's GPUs on one
// server are left out. Only the Pareto frontier is kept; best first: higher speedup, then
// fewer cores, then less memory. Storage is the proportional share per GPU.
std::vector<Option> OptionsAtOrAboveProportional(const JobView& job, const Cluster& cluster);

// OptionsAtOrAboveProportional for the jobs of one round: jobs of one shape
// (profile, GPUs, ideal demand and speedup, all it reads of a job) share
// their options, worked out once. A queue holds thousands of jobs of each
// model, and walking a profile's grid for each was a third of a graded
// round at 16,384 GPUs.
class RoundOptions {
 public:
  explicit RoundOptions(const Cluster& cluster) : cluster_(&cluster) {}
  // Valid while this object lives.
  const std::vector<Option>& For(const JobView& job);

 private:
  using Shape = std::tuple<const SensitivityProfile*, int, int, double, double, double, double>;
  const Cluster* cluster_;
  std::map<Shape, std::vector<Option>> by_shape_;  // nodes: references stay valid
};

// The whole-job demand of `option` for `gpus` GPUs.
inline Resources DemandFor(const Option& option, int gpus) {
  return Resources{gpus, option.per_gpu.cpus * gpus, option.per_gpu.mem_gb * gpus,
                   option.per_gpu.storage_mbps * gpus};
}

// A whole-job demand divided by its GPUs (the reference's
// gpu_normalized_vector): what each GPU brings with it.
inline Resources PerGpu(const Resources& demand) {
  const double g = demand.gpus;
  return Resources{1, demand.cpus / g, demand.mem_gb / g, demand.storage_mbps / g};
}

// Fits `demand` for `job` (PlacementState::Fit) and commits it; false when
// it does not fit.
inline bool TryPlace(PlacementState& state, JobId job, const Resources& demand,
                     double speedup, bool at_ideal) {
  auto slices = state.Fit(demand);
  if (!slices) return false;
  state.Commit(Assignment{job, std::move(*slices), speedup, at_ideal});
  return true;
}

// Fits the proportional share of `gpus` GPUs for `job`, each GPU with its
// server's share (PlacementState::FitShare), and commits it at speedup 1.
inline bool TryPlaceShare(PlacementState& state, JobId job, int gpus) {
  auto slices = state.FitShare(gpus);
  if (!slices) return false;
  state.Commit(Assignment{job, std::move(*slices), 1.0, false});
  return true;
}

// Fits the job's ideal demand (its share where it asks for one) and
// commits it at its ideal speedup.
inline bool TryPlaceIdeal(PlacementState& state, const JobView& job) {
  if (job.asks_for_share) {
    auto slices = state.FitShare(job.gpus);
    if (!slices) return false;
    state.Commit(Assignment{job.id, std::move(*slices), job.ideal_speedup, true});
    return true;
  }
  return TryPlace(state, job.id, job.ideal_demand, job.ideal_speedup, true);
}

}  // namespace synergy::mechanisms
