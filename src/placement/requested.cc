#include "mechanisms.h"

namespace synergy::mechanisms {
namespace {

// What a cluster without Synergy does: each job gets exactly the CPUs and
// memory its submitter asked for (Kubernetes' requests, Slurm's
// --cpus-per-gpu and --mem), where it recorded them; the proportional
// share in a dimension it did not. A job whose request does not fit waits
// and its GPUs go to the jobs behind it, as a pod stays pending. The
// baseline that imported traces are measured against (docs/traces.md).
class Requested final : public Mechanism {
 public:
  std::string_view name() const override { return "requested"; }
  // The request sets the job's speed: policies that divide remaining time
  // by the speedup see the speed it runs at.
  bool uses_speedup() const override { return true; }
  void PlaceFrom(Candidates& candidates, PlacementState& state) const override {
    ForEachFitting(candidates, state, [&](const JobView& job) { Place(job, state); });
  }

 private:
  static void Place(const JobView& job, PlacementState& state) {
    if (job.requested_cpus <= 0 && job.requested_mem_gb <= 0) {
      TryPlaceShare(state, job.id, job.gpus);
      return;
    }
    const Resources demand = RequestedDemand(job.gpus, job.requested_cpus, job.requested_mem_gb, state.cluster());
    const double g = job.gpus;
    // The speed the request gives (the profile's speedup at it, which is
    // what the job runs at: synergy/allocation_speed.h); 1 without one.
    double speedup = 1;
    if (job.profile != nullptr) {
      const double at = job.profile->SpeedupAt(demand.cpus / g, demand.mem_gb / g);
      if (at > 0) speedup = at;
    }
    TryPlace(state, job.id, demand, speedup, false);
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeRequested() { return std::make_unique<Requested>(); }

}  // namespace synergy::mechanisms

namespace synergy {

Resources RequestedDemand(int gpus, double cpus, double mem_gb, const Cluster& cluster) {
  const Resources& share = cluster.smallest_share_per_gpu();
  const double g = gpus;
  return Resources{gpus, cpus > 0 ? cpus : share.cpus * g, mem_gb > 0 ? mem_gb : share.mem_gb * g,
                   share.storage_mbps * g};
}

}  // namespace synergy
