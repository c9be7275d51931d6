#pragma once
// Measured resource-sensitivity profiles (the paper's W_j[c][m]) and the model
// zoo that names them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "synergy/cluster.h"
#include "synergy/resources.h"

namespace synergy {

enum class Task { kImage = 0, kLanguage = 1, kSpeech = 2 };
const char* TaskName(Task task);

// Throughput of a one-GPU job over a CPU x memory grid, normalised to 1.0 at
// the GPU-proportional point. Answers the questions every mechanism asks.
class SensitivityProfile {
 public:
  SensitivityProfile() = default;
  // `throughput[i][k]` is the throughput at cpu_points[i] cores and
  // mem_points_gb[k] GB. Points must be strictly increasing.
  SensitivityProfile(std::vector<double> cpu_points,
                     std::vector<double> mem_points_gb,
                     std::vector<std::vector<double>> throughput,
                     Resources ideal_per_gpu, double ideal_speedup);

  // Throughput at (cpus, mem) per GPU: the value of the largest grid point
  // that does not exceed (cpus, mem); 0 below the smallest point.
  double ThroughputAt(double cpus_per_gpu, double mem_per_gpu) const;
  // What a job runs at when it holds (cpus, mem) per GPU: ThroughputAt, and
  // at least the ideal speedup at or above the ideal point (the zoo states
  // its ideal beside its grid, for some models below the grid's smallest
  // memory: gnmt's 20 GB against 20.83). Below the grid: the smallest
  // memory point's figure, scaled by the CPUs over the smallest CPU point.
  double SpeedupAt(double cpus_per_gpu, double mem_per_gpu) const;
  // The smallest per-GPU demand at which the job reaches its best
  // throughput, and that throughput (relative to proportional).
  const Resources& ideal_per_gpu() const { return ideal_per_gpu_; }
  double ideal_speedup() const { return ideal_speedup_; }
  // The best grid point (per GPU) within `limit` whose throughput is at least
  // `floor_throughput`; nullopt when none is.
  std::optional<Resources> BestPointWithin(const Resources& limit,
                                           double floor_throughput) const;

  const std::vector<double>& cpu_points() const { return cpu_points_; }
  const std::vector<double>& mem_points_gb() const { return mem_points_gb_; }
  const std::vector<std::vector<double>>& throughput() const { return throughput_; }

 private:
  std::vector<double> cpu_points_;
  std::vector<double> mem_points_gb_;
  std::vector<std::vector<double>> throughput_;
  Resources ideal_per_gpu_;
  double ideal_speedup_ = 1.0;
};

struct ModelSpec {
  std::string name;
  Task task = Task::kImage;
  double iteration_time_s = 1.0;  // per iteration at the proportional share
  int batch = 0;
  double placement_penalty = 1.0;  // throughput factor when split across servers
  SensitivityProfile profile;
  // GPU-side speed on other GPU types, relative to the zoo's base type (the
  // one the profile was measured on), by type name (gpu_type_model.h).
  std::map<std::string, double> gpu_speed;
};

// A job's demand and speedup once its GPU count is known: g times the
// per-GPU ideal, capped at what one server can give, with the speedup scaled
// down linearly between proportional and ideal when the CPU demand is capped
// (the reference's add_synergy_profile).
struct JobDemand {
  Resources ideal;      // for the whole job
  double speedup = 1;   // throughput at `ideal`, relative to proportional
};
JobDemand IdealDemandFor(const ModelSpec& model, int gpus, const Cluster& cluster);

class ModelZoo {
 public:
  ModelZoo() = default;
  explicit ModelZoo(std::vector<ModelSpec> models, std::string base_gpu_type = "");

  // The GPU type the profiles were measured on ("" when the zoo does not
  // say): a server of this type, or of no stated type, runs them as they are.
  const std::string& base_gpu_type() const { return base_gpu_type_; }
  // `model`'s GPU-side speed on `gpu_type` relative to the base type: 1 on
  // the base type (or ""), its gpu_speed entry otherwise; nullopt when the
  // zoo does not know it.
  std::optional<double> GpuSpeed(int model, const std::string& gpu_type) const;

  const std::vector<ModelSpec>& models() const { return models_; }
  // Index of the model named `name`, or -1.
  int Find(const std::string& name) const;
  const ModelSpec& model(int index) const { return models_[index]; }
  // Models of a task, in zoo order (the generator round-robins over them).
  std::vector<int> ModelsOfTask(Task task) const;

 private:
  std::vector<ModelSpec> models_;
  std::string base_gpu_type_;
};

}  // namespace synergy
