#pragma once
// One simulation run from validated options: load the cluster and the zoo
// (files or the embedded defaults), build the workload (trace or generator),
// run, and summarise. Shared by `synergy-sim run` and `synergy-sim sweep`.
// Writes nothing; the caller writes the report once the run has succeeded.
#include <functional>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "sim/options.h"
#include "sim/report.h"
#include "sim/simulator.h"

namespace synergy::sim {

struct Inputs {
  Cluster cluster;
  ModelZoo zoo;
  std::vector<JobSpec> trace;  // empty for a generated workload
};

// Loads and cross-checks everything a run reads, before it starts.
absl::StatusOr<Inputs> LoadInputs(const CommonOptions& common, const WorkloadOptions& workload);

struct Experiment {
  SimResult result;
  Summary summary;
  std::vector<JobSpec> generated;  // with `keep_generated`: every generated job
};

// The settings every run's summary.json records from `common`: policy,
// round, placement, execution model and restart model; and the choice of
// GPU types where `inputs`' cluster has types to choose (a single-type
// run's summary is as it was).
std::map<std::string, Setting> CommonSettings(const CommonOptions& common, const Inputs& inputs);

absl::StatusOr<Experiment> RunExperiment(const Inputs& inputs, const CommonOptions& common,
                                         const WorkloadOptions& workload,
                                         const std::string& mechanism, bool keep_generated,
                                         const std::function<void(const SimProgress&)>& progress,
                                         const std::function<void(double, const Assignment&)>& on_booked = {});

}  // namespace synergy::sim
