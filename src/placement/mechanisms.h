#pragma once
// The placement mechanisms, one per file; the registry (registry.cc) names
// them. Helpers shared by all of them live here.
#include <memory>

#include "synergy/mechanism.h"

namespace synergy::mechanisms {

std::unique_ptr<Mechanism> MakeProportional();
std::unique_ptr<Mechanism> MakeGreedy();
std::unique_ptr<Mechanism> MakeTune();

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

}  // namespace synergy::mechanisms
