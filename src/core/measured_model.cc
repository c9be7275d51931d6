#include "synergy/measured_model.h"

#include <algorithm>
#include <set>
#include <vector>

namespace synergy {

std::optional<MeasuredPoint> MeasuredKnee(std::span<const MeasuredPoint> points, double knee_tolerance) {
  double best = 0;
  for (const MeasuredPoint& p : points) best = std::max(best, p.throughput);
  if (!(best > 0)) return std::nullopt;
  std::optional<MeasuredPoint> knee;
  for (const MeasuredPoint& p : points) {
    if (p.throughput < best * (1 - knee_tolerance) - 1e-12) continue;
    if (!knee || p.cpus < knee->cpus || (p.cpus == knee->cpus && p.mem_gb < knee->mem_gb)) knee = p;
  }
  return knee;
}

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
  // Measured throughputs are noisy: the ideal demand is the knee, not the
  // exact best, which a flat curve reaches at a random point.
  const std::optional<MeasuredPoint> knee = MeasuredKnee(points, knee_tolerance);
  if (!knee) return std::nullopt;
  const Resources ideal{1, knee->cpus / gpus, knee->mem_gb / gpus, share.storage_mbps};
  const double at_ideal = knee->throughput;
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
