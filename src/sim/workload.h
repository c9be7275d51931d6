#pragma once
// The reference simulator's synthetic workload: Poisson arrivals at a load in
// jobs per hour, its duration distribution and GPU-demand mix, and a model
// mix that tracks a (image, language, speech) split. Seeded; the same seed
// gives the same jobs, in the same order, as the reference's --record_trace.
#include <array>
#include <string>
#include <cstdint>

#include "sim/python_random.h"
#include "synergy/job.h"
#include "synergy/model_zoo.h"

namespace synergy::sim {

// One job as a trace line holds it (job_id,model,arrival_s,iterations,gpus).
struct JobSpec {
  JobId id = 0;
  int model = 0;  // index into the ModelZoo
  double arrival_s = 0;
  double iterations = 0;
  int gpus = 1;
  // False: a plain process that cannot checkpoint (trace field
  // `checkpoints` 0). Ending its lease loses all its progress, so it is
  // never time-sliced (JobView::runs_without_checkpoint) nor re-placed
  // (lease_fate.h); only default-mode replays have such jobs.
  bool checkpoints = true;
  // What a trace recorded of the job beyond the reference's five fields
  // (trace.h's named columns; imported traces carry them): the CPUs and
  // memory it requested (0: not recorded), the share of a GPU it asked for
  // where below one, the GPU type it asked for ("" none), its recorded run
  // time (0: none) and who submitted it ("" none).
  double requested_cpus = 0;
  double requested_mem_gb = 0;
  double gpu_fraction = 1;
  std::string gpu_type;
  double duration_s = 0;
  std::string user;
  // The longest it may run, summed over its leases (0: no limit; a
  // deployment's time_limit): at the limit its lease ends and it ends as
  // timed out (JobRecord::timed_out).
  double time_limit_s = 0;
  // The tenant it is accounted to ("" none): a run's --tenants quotas apply
  // by this name (imported traces: Helios's and Philly's virtual cluster).
  std::string tenant;
  bool has_recorded_fields() const {
    return requested_cpus > 0 || requested_mem_gb > 0 || gpu_fraction != 1 || !gpu_type.empty() || duration_s > 0 ||
           !user.empty() || time_limit_s > 0 || !tenant.empty();
  }
};

struct GeneratorConfig {
  double load_jobs_per_hour = 9.0;
  uint64_t seed = 42;
  std::array<int, 3> split_percent{20, 70, 10};  // image, language, speech
  // false: every job asks for one GPU (the GPU draw is still made, so the
  // other attributes stay those of the mixed workload).
  bool multi_gpu = true;
};

class WorkloadGenerator {
 public:
  // The zoo must hold at least one model of each task with a non-zero share.
  WorkloadGenerator(const GeneratorConfig& config, const ModelZoo& zoo);

  // The next job; ids count up from 0, arrivals never decrease.
  JobSpec Next();

 private:
  int NextModel();

  GeneratorConfig config_;
  const ModelZoo* zoo_;
  PythonRandom random_;
  JobId next_id_ = 0;
  double last_arrival_s_ = 0;
  std::array<int64_t, 3> jobs_of_task_{0, 0, 0};
  std::array<std::vector<int>, 3> models_of_task_;
  std::array<int64_t, 3> round_robin_{0, 0, 0};
};

}  // namespace synergy::sim
