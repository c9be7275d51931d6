#include "synergy/gpu_type_model.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace synergy {
namespace {

// A grid value within this fraction of the plateau is on it (the zoo's
// figures are written to two decimals; the plateau is their maximum).
constexpr double kOnPlateau = 1e-9;

double Plateau(const SensitivityProfile& p) {
  double g = p.ideal_speedup();
  for (const auto& row : p.throughput()) {
    for (double t : row) g = std::max(g, t);
  }
  return g;
}

}  // namespace

std::vector<std::vector<double>> RatesOnGpuType(const SensitivityProfile& base, double gpu_speed) {
  const std::vector<double>& cpus = base.cpu_points();
  const std::vector<std::vector<double>>& seen = base.throughput();
  const double plateau = Plateau(base);
  const double gpu_rate = gpu_speed * plateau;
  std::vector<std::vector<double>> rates = seen;
  if (cpus.empty()) return rates;
  const size_t mems = base.mem_points_gb().size();
  for (size_t k = 0; k < mems; ++k) {
    // The pipeline is seen up to the first CPU count that reaches the
    // plateau; from there on it is hidden behind the GPU.
    size_t first_on_plateau = cpus.size();
    for (size_t i = 0; i < cpus.size(); ++i) {
      if (seen[i][k] >= plateau * (1 - kOnPlateau)) {
        first_on_plateau = i;
        break;
      }
    }
    for (size_t i = 0; i < cpus.size(); ++i) {
      double pipeline = seen[i][k];
      if (i >= first_on_plateau) {
        // In proportion to the CPUs from the last point below the plateau
        // (or from the plateau at the grid's first point), and never less
        // than was seen.
        const double hidden = first_on_plateau > 0
                                  ? seen[first_on_plateau - 1][k] * cpus[i] / cpus[first_on_plateau - 1]
                                  : plateau * cpus[i] / cpus[0];
        pipeline = std::max(pipeline, hidden);
      }
      rates[i][k] = std::min(gpu_rate, pipeline);
    }
  }
  return rates;
}

absl::StatusOr<ModelSpec> ModelOnGpuType(const ModelSpec& base, double gpu_speed, const Resources& share_per_gpu) {
  const SensitivityProfile& p = base.profile;
  if (gpu_speed == 1.0 && p.SpeedupAt(share_per_gpu.cpus, share_per_gpu.mem_gb) == 1.0) return base;
  std::vector<std::vector<double>> rates = RatesOnGpuType(p, gpu_speed);
  // The rate at the share, read as SpeedupAt reads a grid (no ideal point).
  const SensitivityProfile raw(p.cpu_points(), p.mem_points_gb(), rates, Resources{1, HUGE_VAL, HUGE_VAL, 0}, 0);
  const double at_share = raw.SpeedupAt(share_per_gpu.cpus, share_per_gpu.mem_gb);
  if (!(at_share > 0) || !(gpu_speed > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("model '", base.name, "': its profile gives no throughput at the share (",
                                                   share_per_gpu.cpus, " CPUs, ", share_per_gpu.mem_gb,
                                                   " GB a GPU) at GPU speed ", gpu_speed));
  }
  double plateau = 0;
  for (auto& row : rates) {
    for (double& t : row) {
      t /= at_share;
      plateau = std::max(plateau, t);
    }
  }
  // The smallest grid point on the plateau: fewest CPUs, then least memory.
  Resources ideal{1, p.cpu_points().back(), p.mem_points_gb().back(), 0};
  bool found = false;
  for (size_t i = 0; i < rates.size() && !found; ++i) {
    for (size_t k = 0; k < rates[i].size(); ++k) {
      if (rates[i][k] >= plateau * (1 - kOnPlateau)) {
        ideal = Resources{1, p.cpu_points()[i], p.mem_points_gb()[k], 0};
        found = true;
        break;
      }
    }
  }
  // A slower type reaches its plateau wherever the base reached its own,
  // which the zoo may state below its grid (gnmt: 20 GB against 20.83).
  const Resources& stated = p.ideal_per_gpu();
  if (gpu_speed <= 1.0 && stated.cpus <= ideal.cpus && stated.mem_gb <= ideal.mem_gb) ideal = stated;
  ModelSpec typed = base;
  typed.profile = SensitivityProfile(p.cpu_points(), p.mem_points_gb(), std::move(rates), ideal, plateau);
  typed.iteration_time_s = base.iteration_time_s / at_share;
  return typed;
}

}  // namespace synergy
