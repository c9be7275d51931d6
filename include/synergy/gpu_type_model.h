#pragma once
// A job's profile on another GPU type: the third dimension of the paper's
// W_j[c][m] (its "future work": heterogeneous GPUs), modelled from the
// profile measured on the zoo's base type and the type's GPU-side speed for
// the job's model (docs/profiling.md, "Other GPU types").
//
// The model: a training job's rate is the slower of two stages, its GPU
// (forward and backward passes) and its data pipeline (loading, decoding,
// augmenting on the CPUs, from the page cache in memory):
//   rate_t(c, m) = min(s_t x G, P(c, m))
// G is the base profile's plateau (the GPU-bound rate there), s_t the
// type's GPU-side speed relative to the base type (configs/models/zoo.yaml
// `gpu_speed`, from Gavel's measured throughputs), P the pipeline's rate.
// Where the base profile is below its plateau it reads P itself; at the
// plateau P is hidden behind G, and is taken to grow in proportion to the
// CPUs from the last point below the plateau (each data worker adds its
// batches; memory as measured there). So a slower type (s < 1) is the base
// profile capped at s x G, and its CPU knee moves down; a faster one reaches
// past G where the pipeline allows, and its knee moves up.
#include <vector>

#include "absl/status/statusor.h"
#include "synergy/model_zoo.h"
#include "synergy/resources.h"

namespace synergy {

// rate_t over `base`'s grid ([cpu index][memory index]), in the base
// profile's units (1 = the base type at the point where `base` reads 1).
// `gpu_speed` > 0.
std::vector<std::vector<double>> RatesOnGpuType(const SensitivityProfile& base, double gpu_speed);

// `base` as a job of the same model sees it on servers of a type of speed
// `gpu_speed` whose proportional share of one GPU is `share_per_gpu`: the
// profile is rate_t over the same grid, normalised to 1 at that share (so
// that a mechanism's "proportional" is this type's), its ideal the
// smallest grid point reaching its plateau, and its iteration time the
// base's divided by rate_t at the share (the type's speed at proportional,
// in base units). `gpu_speed` 1 gives the base model unchanged where the
// share is the point at which the base profile reads 1. An error, naming
// the model, where the job would not run at all at the share there (the
// profile reads 0 at it).
absl::StatusOr<ModelSpec> ModelOnGpuType(const ModelSpec& base, double gpu_speed, const Resources& share_per_gpu);

}  // namespace synergy
