#pragma once
// A job's sensitivity model from what its agent measured, for the core: the
// same ModelSpec a zoo model gives, so a measured job is scheduled exactly
// as a profiled model is. Pure; both drivers may use it.
#include <optional>
#include <span>

#include "synergy/cluster.h"
#include "synergy/model_zoo.h"

namespace synergy {

// One measurement of the whole job: its throughput (iterations per second)
// at `cpus` cores and `mem_gb` GB, for all its GPUs together.
struct MeasuredPoint {
  double cpus = 0;
  double mem_gb = 0;
  double throughput = 0;
};

// The knee of the measurements: the point of fewest cores (then GB) whose
// throughput is within `knee_tolerance` of the best (the profiler's
// threshold, so that noise does not pick it): the job's ideal demand, what
// TUNE asks for. nullopt without points or without a positive throughput.
std::optional<MeasuredPoint> MeasuredKnee(std::span<const MeasuredPoint> points, double knee_tolerance = 0.10);

// The measurements as a ModelSpec on `cluster`: per-GPU grid points (cpus /
// gpus, mem / gpus), throughput normalised at the cluster's proportional
// share, the ideal demand the MeasuredKnee, and the iteration time the
// measured one at the share. nullopt when there is nothing to compare with: no
// points, no GPUs, an empty cluster, or no throughput at the share.
std::optional<ModelSpec> ModelFromMeasured(std::span<const MeasuredPoint> points, int gpus, const Cluster& cluster,
                                           double knee_tolerance = 0.10);

}  // namespace synergy
