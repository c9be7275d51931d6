#include "sim/import/job_work.h"

#include "synergy/allocation_speed.h"
#include "synergy/gpu_type_model.h"
#include "synergy/mechanism.h"

namespace synergy::sim {
namespace {

// The share per GPU of the first server of `gpu_type`, or nullptr.
const ServerSpec* FirstOfType(const Cluster& cluster, const std::string& gpu_type) {
  for (const ServerSpec& s : cluster.servers()) {
    if (s.gpu_type == gpu_type) return &s;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<double> IterationsForDuration(const ModelZoo& zoo, int model, const ImportedJob& job,
                                             const std::string& gpu_type, const Cluster& cluster) {
  ModelSpec spec = zoo.model(model);
  const ServerSpec* typed =
      gpu_type.empty() || gpu_type == zoo.base_gpu_type() ? nullptr : FirstOfType(cluster, gpu_type);
  if (typed != nullptr) {
    const std::optional<double> speed = zoo.GpuSpeed(model, gpu_type);
    if (speed) {
      const Resources& c = typed->capacity;
      const Resources share{1, c.cpus / c.gpus, c.mem_gb / c.gpus, c.storage_mbps / c.gpus};
      auto on_type = ModelOnGpuType(spec, *speed, share);
      if (!on_type.ok()) return on_type.status();
      spec = *std::move(on_type);
    }
  }
  const Resources demand = RequestedDemand(job.gpus, job.cpus, job.mem_gb, cluster);
  // One slice where a server has the job's GPUs; two (the penalty's
  // trigger) where it must spread.
  Slices slices{Slice{0, demand}};
  if (job.gpus > cluster.largest_server().gpus) slices.push_back(Slice{1, demand});
  const AllocationSpeed at = SpeedAtAllocation(&spec.profile, slices, spec.placement_penalty, 1.0);
  return job.duration_s * at.rate() / spec.iteration_time_s;
}

}  // namespace synergy::sim
