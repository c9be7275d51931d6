#include "sim/experiment.h"

#include "absl/strings/str_cat.h"
#include "sim/trace.h"
#include "synergy/config_loader.h"
#include "synergy/default_configs.h"

namespace synergy::sim {

absl::StatusOr<Inputs> LoadInputs(const CommonOptions& common, const WorkloadOptions& workload) {
  Inputs in;
  auto cluster = common.cluster_path.empty() ? DefaultCluster() : LoadClusterFile(common.cluster_path);
  if (!cluster.ok()) return cluster.status();
  // The reference measures every job's share against the cluster's
  // totals (the same as each server's own on identical servers).
  in.cluster = common.reference_compatible ? Cluster(cluster->servers(), ShareRule::kClusterWide)
                                           : *std::move(cluster);
  auto zoo = common.models_path.empty() ? DefaultModelZoo() : LoadModelZooFile(common.models_path);
  if (!zoo.ok()) return zoo.status();
  in.zoo = *std::move(zoo);
  // Servers of no stated type are of the zoo's base type; every other type
  // needs every model's speed on it.
  in.cluster = WithBaseGpuType(in.cluster, in.zoo.base_gpu_type());
  const std::string cluster_name = common.cluster_path.empty() ? "<embedded default-128.yaml>" : common.cluster_path;
  const std::string zoo_name = common.models_path.empty() ? "<embedded zoo.yaml>" : common.models_path;
  for (const std::string& type : in.cluster.gpu_types()) {
    for (int m = 0; m < static_cast<int>(in.zoo.models().size()); ++m) {
      if (in.zoo.GpuSpeed(m, type)) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          cluster_name, ": gpu_type '", type, "': model '", in.zoo.model(m).name, "' has no gpu_speed for it in ",
          zoo_name, " (its profiles are of type '", in.zoo.base_gpu_type(), "')"));
    }
  }
  if (common.reference_compatible && !in.cluster.heterogeneous() &&
      HasOtherGpuTypes(in.cluster, in.zoo.base_gpu_type())) {
    return absl::InvalidArgumentError(absl::StrCat(
        cluster_name, ": gpu_type '", in.cluster.gpu_types()[0],
        "': not with --reference-compatible (the reference's profiles are of type '", in.zoo.base_gpu_type(), "')"));
  }
  if (!workload.trace_path.empty()) {
    auto trace = LoadTrace(workload.trace_path, in.zoo, in.cluster);
    if (!trace.ok()) return trace.status();
    in.trace = *std::move(trace);
    return in;
  }
  // A generated workload draws jobs of up to 8 GPUs from every task with a
  // share: the zoo and the cluster must be able to serve them.
  static const char* kTasks[] = {"image", "language", "speech"};
  for (int t = 0; t < 3; ++t) {
    if (workload.split_percent[t] > 0 && in.zoo.ModelsOfTask(static_cast<Task>(t)).empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--split: ", kTasks[t], " has a ", workload.split_percent[t],
          "% share but the model zoo has no ", kTasks[t], " model"));
    }
  }
  const int largest_job = workload.multi_gpu || common.reference_compatible ? 8 : 1;
  // A job runs on servers of one GPU type: the largest type must hold it.
  const int largest_type = LargestGpuType(in.cluster);
  if (largest_type < largest_job) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster: ", largest_type, " GPUs", in.cluster.heterogeneous() ? " of one type" : "",
        " cannot run the generator's ", largest_job, "-GPU jobs"));
  }
  return in;
}

absl::StatusOr<Experiment> RunExperiment(const Inputs& inputs, const CommonOptions& common,
                                         const WorkloadOptions& workload,
                                         const std::string& mechanism_name, bool keep_generated,
                                         const std::function<void(const SimProgress&)>& progress,
                                         const std::function<void(double, const Assignment&)>& on_booked) {
  auto policy = MakePolicy(common.policy);
  if (!policy.ok()) return policy.status();
  MechanismOptions mechanism_options;
  mechanism_options.opt_branch_nodes = common.opt_branch_nodes;
  mechanism_options.opt_simplex_iterations = common.opt_simplex_iterations;
  auto mechanism = MakeMechanism(mechanism_name, mechanism_options);
  if (!mechanism.ok()) return mechanism.status();

  SimConfig config;
  config.cluster = &inputs.cluster;
  config.zoo = &inputs.zoo;
  config.policy = policy->get();
  config.mechanism = mechanism->get();
  config.round_s = common.round_s;
  config.reference_compatible = common.reference_compatible;
  config.restart_cost_s = common.reference_compatible ? 0 : common.restart_cost_s;
  config.resize_in_place = common.resize_in_place;
  config.keep_leases = common.keep_leases;
  config.launch_between_rounds = common.launch_between_rounds && !common.reference_compatible;
  config.gpu_placement = common.gpu_placement;
  config.type_choice = common.type_choice;
  config.tenant_names = common.tenant_names;
  config.tenants.quotas = common.tenant_quotas;
  config.fair_share_half_life_s = common.fair_share_half_life_h * 3600;
  config.progress = progress;
  config.on_booked = on_booked;

  Experiment out;
  absl::StatusOr<SimResult> result;
  if (!inputs.trace.empty()) {
    result = RunTrace(config, inputs.trace);
  } else {
    GeneratorConfig gen;
    gen.load_jobs_per_hour = workload.load_jobs_per_hour;
    gen.seed = workload.seed;
    gen.split_percent = workload.split_percent;
    // The reference mixes GPU counts in synthetic mode whatever its flag says.
    gen.multi_gpu = workload.multi_gpu || common.reference_compatible;
    WorkloadGenerator generator(gen, inputs.zoo);
    std::function<void(const JobSpec&)> keep;
    if (keep_generated) keep = [&](const JobSpec& job) { out.generated.push_back(job); };
    result = RunGenerated(config, generator, workload.measure_from, workload.measure_to, keep);
  }
  if (!result.ok()) return result.status();
  out.result = *std::move(result);
  out.summary = Summarize(out.result, inputs.cluster, common.round_s);
  return out;
}

std::map<std::string, Setting> CommonSettings(const CommonOptions& common, const Inputs& inputs) {
  std::map<std::string, Setting> settings = {{"policy", common.policy},
          {"reference_compatible", common.reference_compatible},
          {"round_s", common.round_s},
          {"placement", common.gpu_placement == GpuPlacement::kConsolidate ? "consolidate" : "first-fit"},
          {"restart_cost_s", common.reference_compatible ? 0.0 : common.restart_cost_s},
          {"resize_in_place", common.resize_in_place},
          {"launch_between_rounds", common.launch_between_rounds && !common.reference_compatible},
          {"keep_leases", common.keep_leases || common.resize_in_place ||
                              (!common.reference_compatible && common.restart_cost_s > 0)}};
  if (HasOtherGpuTypes(inputs.cluster, inputs.zoo.base_gpu_type())) {
    settings["type_choice"] = std::string(TypeChoiceName(common.type_choice));
  }
  return settings;
}

}  // namespace synergy::sim
