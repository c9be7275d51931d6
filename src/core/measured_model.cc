#include "synergy/measured_model.h"

#include <algorithm>
#include <set>
#include <vector>

namespace synergy {

std::optional<ModelSpec> ModelFromMeasured(std::span<const MeasuredPoint> points, int gpus, const Cluster& cluster,
                                           double knee_tolerance) {
  if (gpus <= 0 || points.empty() || cluster.num_servers() == 0) return std::nullopt;
  std::set<double> cpu_set, mem_set;
  for (const MeasuredPoint& p : points) {
    cpu_set.insert(p.cpus / gpus);
    mem_set.insert(p.mem_gb / gpus);
  }
  std::vector<double> cpus(cpu_set.begin(), cpu_set.end()), mems(mem_set.begin(), mem_set.end());
  std::vector<std::vector<double>> raw(cpus.size(), std::vector<double>(mems.size(), 0.0));
  for (const MeasuredPoint& p : points) {
    const size_t c = std::lower_bound(cpus.begin(), cpus.end(), p.cpus / gpus) - cpus.begin();
    const size_t m = std::lower_bound(mems.begin(), mems.end(), p.mem_gb / gpus) - mems.begin();
    raw[c][m] = p.throughput;
  }
  const Resources& share = cluster.share_per_gpu();
  const SensitivityProfile unnormalised(cpus, mems, raw, Resources{}, 1.0);
  const double at_share = unnormalised.ThroughputAt(share.cpus, share.mem_gb);
  if (!(at_share > 0)) return std::nullopt;
  double best = 0;
  for (const auto& row : raw) {
    for (double t : row) best = std::max(best, t);
  }
  // Measured throughputs are noisy: the ideal demand is the fewest cores
  // (then GB) within the knee tolerance of the best, not the exact best,
  // which a flat curve reaches at a random point.
  Resources ideal{1, cpus.back(), mems.back(), share.storage_mbps};
  double at_ideal = best;
  bool found = false;
  for (size_t c = 0; c < cpus.size() && !found; ++c) {
    for (size_t m = 0; m < mems.size() && !found; ++m) {
      if (raw[c][m] >= best * (1 - knee_tolerance) - 1e-12) {
        ideal = Resources{1, cpus[c], mems[m], share.storage_mbps};
        at_ideal = raw[c][m];
        found = true;
      }
    }
  }
  std::vector<std::vector<double>> normalised = raw;
  for (auto& row : normalised) {
    for (double& t : row) t /= at_share;
  }
  ModelSpec spec;
  spec.name = "measured";
  // Seconds per iteration of the whole job at its proportional share.
  spec.iteration_time_s = 1.0 / at_share;
  spec.profile = SensitivityProfile(cpus, mems, normalised, ideal, at_ideal / at_share);
  return spec;
}

}  // namespace synergy
