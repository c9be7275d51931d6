// Helpers shared by the mechanisms (declared in mechanisms.h).
#include <algorithm>
#include <tuple>

#include "mechanisms.h"

namespace synergy::mechanisms {

bool AboveProportional(const Resources& demand, const Cluster& cluster) {
  const Resources& per_gpu = cluster.smallest_share_per_gpu();
  const int g = demand.gpus;
  const Resources fair{g, per_gpu.cpus * g, per_gpu.mem_gb * g, per_gpu.storage_mbps * g};
  return demand.cpus > fair.cpus || demand.mem_gb > fair.mem_gb ||
         demand.storage_mbps > fair.storage_mbps;
}

std::vector<std::pair<int, int>> ServersForGpus(int gpus, const PlacementState& state) {
  std::vector<std::pair<int, int>> out;
  if (gpus > 1) {
    const int server = state.FirstWithFreeGpus(gpus);
    if (server >= 0) return {{server, gpus}};
  }
  int need = gpus;
  state.VisitByFreeGpus(1, [&](int s) {
    const int take = std::min(state.available(s).gpus, need);
    out.emplace_back(s, take);
    need -= take;
    return need > 0;
  });
  return out;
}

std::vector<Option> OptionsAtOrAboveProportional(const JobView& job, const Cluster& cluster) {
  const Resources& share = cluster.share_per_gpu();
  std::vector<Option> options;
  options.push_back(Option{share, 1.0});
  if (job.ideal_speedup >= 1.0) {
    Resources ideal = PerGpu(job.ideal_demand);
    ideal.storage_mbps = share.storage_mbps;
    options.push_back(Option{ideal, job.ideal_speedup, true});
  }
  if (job.profile != nullptr) {
    const SensitivityProfile& p = *job.profile;
    const double at_share = p.ThroughputAt(share.cpus, share.mem_gb);
    const Resources& largest = cluster.largest_server();
    const int on_one_server = std::min(job.gpus, largest.gpus);
    if (at_share > 0) {
      for (double c : p.cpu_points()) {
        for (double m : p.mem_points_gb()) {
          const double speedup = p.ThroughputAt(c, m) / at_share;
          // Points that cost no more than the share are kept only if they
          // are faster: the share itself is always an option.
          if (speedup < 1.0) continue;
          if (speedup == 1.0 && c >= share.cpus && m >= share.mem_gb) continue;
          // A point no server could give the job's GPUs it holds together
          // is no option (as IdealDemandFor caps the ideal demand).
          if (c * on_one_server > largest.cpus || m * on_one_server > largest.mem_gb) continue;
          options.push_back(Option{Resources{1, c, m, share.storage_mbps}, speedup});
        }
      }
    }
  }
  std::stable_sort(options.begin(), options.end(), [](const Option& a, const Option& b) {
    // Among equals the ideal demand first, so that it survives pruning.
    return std::make_tuple(-a.speedup, a.per_gpu.cpus, a.per_gpu.mem_gb, !a.ideal) <
           std::make_tuple(-b.speedup, b.per_gpu.cpus, b.per_gpu.mem_gb, !b.ideal);
  });
  // Keep the Pareto frontier: an option that an earlier one (as fast or
  // faster) matches with no more cores and no more memory is never better.
  std::vector<Option> frontier;
  for (const Option& o : options) {
    bool dominated = false;
    for (const Option& f : frontier) {
      if (f.per_gpu.cpus <= o.per_gpu.cpus && f.per_gpu.mem_gb <= o.per_gpu.mem_gb) {
        dominated = true;
        break;
      }
    }
    if (!dominated) frontier.push_back(o);
  }
  return frontier;
}

const std::vector<Option>& RoundOptions::For(const JobView& job) {
  const Resources& ideal = job.ideal_demand;
  const Shape shape{job.profile, job.gpus, ideal.gpus, ideal.cpus, ideal.mem_gb, ideal.storage_mbps,
                    job.ideal_speedup};
  auto it = by_shape_.find(shape);
  if (it == by_shape_.end()) it = by_shape_.emplace(shape, OptionsAtOrAboveProportional(job, *cluster_)).first;
  return it->second;
}

}  // namespace synergy::mechanisms
