#include "daemon/round/typed_views.h"

#include <algorithm>
#include <cmath>

#include "synergy/gpu_type_model.h"
#include "synergy/job_view_rules.h"
#include "synergy/measured_model.h"

namespace synergy::daemon {
namespace {

// `model`'s GPU-side speed on `type` relative to the zoo's base type; 1
// without a zoo model or a speed for the type.
double SpeedOn(const ModelZoo& zoo, int model, const std::string& type) {
  if (model < 0) return 1.0;
  return zoo.GpuSpeed(model, type).value_or(1.0);
}

// The job's model on `type` (servers `part`), kept in `models`; null where
// it has none (scheduled at the share there).
const ModelSpec* ModelOnType(const RoundJob& job, int model, const std::string& type, const Cluster& part,
                             const ModelZoo& zoo, std::deque<ModelSpec>& models) {
  if (auto measured = ModelFromMeasured(job.measured, job.gpus, part)) {
    const std::string& measured_on = job.measured_gpu_type.empty() ? zoo.base_gpu_type() : job.measured_gpu_type;
    if (type == measured_on) return &models.emplace_back(std::move(*measured));
    absl::StatusOr<ModelSpec> carried = ModelOnGpuType(
        *measured, SpeedOn(zoo, model, type) / SpeedOn(zoo, model, measured_on), part.share_per_gpu());
    if (carried.ok()) return &models.emplace_back(*std::move(carried));
  }
  if (model < 0) return nullptr;
  absl::StatusOr<ModelSpec> typed = ModelOnGpuType(zoo.model(model), SpeedOn(zoo, model, type), part.share_per_gpu());
  return typed.ok() ? &models.emplace_back(*std::move(typed)) : nullptr;
}

}  // namespace

TypedViews ViewsByGpuType(const std::vector<const RoundJob*>& jobs, std::vector<JobView>& ordering,
                          const Cluster& cluster, const std::map<std::string, int>& lease_type,
                          const Cluster& base_nodes, const ModelZoo& zoo) {
  TypedViews out;
  const std::vector<std::string>& types = cluster.gpu_types();
  const GpuTypeParts parts = PartsByGpuType(cluster, zoo.base_gpu_type());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const RoundJob& job = *jobs[i];
    JobView& v = ordering[i];
    // As ViewOf: a zoo model only for an agent job that names one.
    const int model = job.uses_agent && !job.model.empty() ? zoo.Find(job.model) : -1;
    ModelsOnTypes models;
    for (size_t t = 0; t < types.size(); ++t) {
      models.on_type.push_back(ModelOnType(job, model, types[t], parts.parts[t].cluster, zoo, out.models));
    }
    if (parts.base < 0) models.on_base = ModelOnType(job, model, zoo.base_gpu_type(), base_nodes, zoo, out.models);
    TypedJobViews built = BuildTypedViews(v, models, cluster, parts, base_nodes, out.views);
    out.reference[v.id] = built.reference;
    const std::vector<const JobView*>& mine = out.on_type[v.id] = std::move(built.on_type);
    auto held = lease_type.find(job.lease_node);
    if (job.holds_lease && job.lease_speedup > 0 && held != lease_type.end()) {
      v.last_round_speedup = CarriedSpeedup(mine[held->second]->ideal_speedup, job.lease_speedup, job.lease_at_ideal) *
                             ServiceWeight(out, v.id, held->second);
    } else if (job.holds_lease && job.lease_speedup > 0 && job.lease_service_weight > 0) {
      // Its lease's type has no node in this round: what the lease was
      // worth in the base type's units when granted.
      v.last_round_speedup = job.lease_speedup * job.lease_service_weight;
    } else {
      v.last_round_speedup = CarriedSpeedup(v.ideal_speedup, 1.0, /*held_ideal=*/true);
    }
  }
  return out;
}

double ServiceWeight(const TypedViews& views, JobId job, int type) {
  auto it = views.on_type.find(job);
  auto reference = views.reference.find(job);
  if (it == views.on_type.end() || reference == views.reference.end() || type < 0 ||
      type >= static_cast<int>(it->second.size())) {
    return 1.0;
  }
  const double weight = reference->second->iteration_time_s / it->second[type]->iteration_time_s;
  return std::isfinite(weight) && weight > 0 ? std::clamp(weight, kMinServiceWeight, kMaxServiceWeight) : 1.0;
}

}  // namespace synergy::daemon
