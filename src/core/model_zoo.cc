#include "synergy/model_zoo.h"

#include <algorithm>

namespace synergy {

const char* TaskName(Task task) {
  switch (task) {
    case Task::kImage: return "image";
    case Task::kLanguage: return "language";
    case Task::kSpeech: return "speech";
  }
  return "unknown";
}

SensitivityProfile::SensitivityProfile(std::vector<double> cpu_points,
                                       std::vector<double> mem_points_gb,
                                       std::vector<std::vector<double>> throughput,
                                       Resources ideal_per_gpu, double ideal_speedup)
    : cpu_points_(std::move(cpu_points)),
      mem_points_gb_(std::move(mem_points_gb)),
      throughput_(std::move(throughput)),
      ideal_per_gpu_(ideal_per_gpu),
      ideal_speedup_(ideal_speedup) {}

namespace {
// Index of the largest point <= value, or -1.
int FloorIndex(const std::vector<double>& points, double value) {
  auto it = std::upper_bound(points.begin(), points.end(), value);
  return static_cast<int>(it - points.begin()) - 1;
}
}  // namespace

double SensitivityProfile::ThroughputAt(double cpus_per_gpu, double mem_per_gpu) const {
  int c = FloorIndex(cpu_points_, cpus_per_gpu);
  int m = FloorIndex(mem_points_gb_, mem_per_gpu);
  if (c < 0 || m < 0) return 0.0;
  return throughput_[c][m];
}

double SensitivityProfile::SpeedupAt(double cpus_per_gpu, double mem_per_gpu) const {
  if (cpu_points_.empty() || mem_points_gb_.empty()) return 0.0;
  if (!(cpus_per_gpu >= 0) || !(mem_per_gpu >= 0)) return 0.0;  // NaN too
  // Below the grid: the smallest memory point's figure, and a data
  // pipeline with a fraction of the smallest CPU count delivers that
  // fraction of its throughput.
  const double cpus = std::max(cpus_per_gpu, cpu_points_.front());
  const double on_grid = ThroughputAt(cpus, std::max(mem_per_gpu, mem_points_gb_.front())) *
                         std::min(1.0, std::max(0.0, cpus_per_gpu) / cpus);
  const bool at_ideal = cpus_per_gpu >= ideal_per_gpu_.cpus - 1e-9 && mem_per_gpu >= ideal_per_gpu_.mem_gb - 1e-9;
  return at_ideal ? std::max(on_grid, ideal_speedup_) : on_grid;
}

std::optional<Resources> SensitivityProfile::BestPointWithin(const Resources& limit,
                                                             double floor_throughput) const {
  std::optional<Resources> best;
  double best_tput = -1;
  for (size_t c = 0; c < cpu_points_.size(); ++c) {
    if (cpu_points_[c] > limit.cpus) break;
    for (size_t m = 0; m < mem_points_gb_.size(); ++m) {
      if (mem_points_gb_[m] > limit.mem_gb) break;
      double t = throughput_[c][m];
      // Strictly better only: among equal throughputs the smallest point wins.
      if (t >= floor_throughput && t > best_tput) {
        best_tput = t;
        best = Resources{1, cpu_points_[c], mem_points_gb_[m], 0};
      }
    }
  }
  return best;
}

namespace {

// One dimension of the reference's capping: a demand above the largest
// server's is cut to it (the speedup is then read off a line: `scale`),
// or, for a job larger than a server, set to the job's share (`share`) at
// speedup 1.
void CapToServer(double& demand, double server, double share, bool larger_than_a_server, double& speedup,
                 bool& scale) {
  if (!(demand > server)) return;
  demand = server;
  scale = true;
  if (larger_than_a_server) {
    demand = share;
    speedup = 1;
    scale = false;
  }
}

}  // namespace

JobDemand IdealDemandFor(const ModelSpec& model, int gpus, const Cluster& cluster) {
  // The operations mirror the reference's add_synergy_profile one by one, so
  // that reference-compatible runs see the same doubles.
  const Resources& server = cluster.largest_server();
  const Resources& share = cluster.share_per_gpu();
  const Resources& per_gpu = model.profile.ideal_per_gpu();
  JobDemand d;
  d.speedup = model.profile.ideal_speedup();
  d.ideal.gpus = gpus;
  d.ideal.cpus = gpus * per_gpu.cpus;
  d.ideal.mem_gb = gpus * per_gpu.mem_gb;
  // The zoo's storage figure is never used by the reference (a field-name
  // slip); every job asks for its proportional storage bandwidth.
  d.ideal.storage_mbps = gpus * share.storage_mbps;
  bool scale_speedup = false;
  const bool larger_than_a_server = gpus > server.gpus;
  CapToServer(d.ideal.cpus, server.cpus, gpus * share.cpus, larger_than_a_server, d.speedup, scale_speedup);
  CapToServer(d.ideal.mem_gb, server.mem_gb, gpus * share.mem_gb, larger_than_a_server, d.speedup, scale_speedup);
  CapToServer(d.ideal.storage_mbps, server.storage_mbps, gpus * share.storage_mbps, larger_than_a_server, d.speedup,
              scale_speedup);
  if (scale_speedup) {
    // A straight line between the proportional point (speedup 1) and the
    // uncapped ideal, read at the capped CPU count.
    const double ideal_cpus = gpus * per_gpu.cpus;
    const double fair_cpus = gpus * share.cpus;
    const double cpu_diff = ideal_cpus - fair_cpus;
    if (cpu_diff != 0) {
      const double slope = (d.speedup - 1) / cpu_diff;
      d.speedup = 1 + slope * (d.ideal.cpus - fair_cpus);
    }
    // cpu_diff == 0 (memory capped, CPU at proportional): the reference
    // raises; we keep the speedup, as the CPU demand did not change.
  }
  // Capped below the share: only on the remainders of servers that a
  // replan sees (ServerSpec::share_per_gpu), where the largest remainder
  // cannot give the job its share. Its ideal is its share (which fits no
  // remainder, so it is not placed there), never a speedup below 1 read
  // off the line. Whole servers always hold their GPUs' share.
  // (An ideal below the share that is not capped is a job that needs less,
  // a language model's 1 CPU a GPU: left alone.)
  if (scale_speedup && (d.ideal.cpus < std::min(gpus * share.cpus, gpus * per_gpu.cpus) ||
                        d.ideal.mem_gb < std::min(gpus * share.mem_gb, gpus * per_gpu.mem_gb))) {
    d.ideal.cpus = std::max(d.ideal.cpus, std::min(gpus * share.cpus, gpus * per_gpu.cpus));
    d.ideal.mem_gb = std::max(d.ideal.mem_gb, std::min(gpus * share.mem_gb, gpus * per_gpu.mem_gb));
    d.speedup = std::max(1.0, d.speedup);
  }
  return d;
}

ModelZoo::ModelZoo(std::vector<ModelSpec> models, std::string base_gpu_type)
    : models_(std::move(models)), base_gpu_type_(std::move(base_gpu_type)) {}

std::optional<double> ModelZoo::GpuSpeed(int model, const std::string& gpu_type) const {
  if (gpu_type.empty() || gpu_type == base_gpu_type_) return 1.0;
  const auto& speeds = models_[model].gpu_speed;
  auto it = speeds.find(gpu_type);
  if (it == speeds.end()) return std::nullopt;
  return it->second;
}

int ModelZoo::Find(const std::string& name) const {
  for (size_t i = 0; i < models_.size(); ++i) {
    if (models_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int> ModelZoo::ModelsOfTask(Task task) const {
  std::vector<int> out;
  for (size_t i = 0; i < models_.size(); ++i) {
    if (models_[i].task == task) out.push_back(static_cast<int>(i));
  }
  return out;
}

}  // namespace synergy
