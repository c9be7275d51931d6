#include "synergy/job_view_rules.h"

#include <algorithm>

namespace synergy {

void SetModelFields(JobView& view, const ModelSpec* model, const Cluster& cluster) {
  if (model == nullptr) {
    view.ideal_demand =
        cluster.num_servers() > 0 ? cluster.ProportionalShare(view.gpus) : Resources{view.gpus, 0, 0, 0};
    view.ideal_speedup = 1.0;
    view.asks_for_share = true;
    view.profile = nullptr;
    return;
  }
  const JobDemand demand = IdealDemandFor(*model, view.gpus, cluster);
  view.ideal_demand = demand.ideal;
  view.ideal_speedup = demand.speedup;
  view.asks_for_share = false;
  view.iteration_time_s = model->iteration_time_s;
  view.placement_penalty = model->placement_penalty;
  view.profile = &model->profile;
}

void CopyModelFields(JobView& to, const JobView& from) {
  to.ideal_demand = from.ideal_demand;
  to.ideal_speedup = from.ideal_speedup;
  to.asks_for_share = from.asks_for_share;
  to.iteration_time_s = from.iteration_time_s;
  to.placement_penalty = from.placement_penalty;
  to.profile = from.profile;
}

double CarriedSpeedup(double ideal_speedup, double held_speedup, bool held_ideal) {
  return held_ideal ? ideal_speedup : held_speedup;
}

GpuTypeParts PartsByGpuType(const Cluster& cluster, const std::string& base_type) {
  GpuTypeParts out;
  const std::vector<std::string>& types = cluster.gpu_types();
  for (size_t t = 0; t < types.size(); ++t) {
    out.parts.push_back(ServersOfGpuType(cluster, static_cast<int>(t)));
    if (types[t].empty() || types[t] == base_type) out.base = static_cast<int>(t);
  }
  return out;
}

TypedJobViews BuildTypedViews(JobView& view, const ModelsOnTypes& models, const Cluster& cluster,
                              const GpuTypeParts& types, const Cluster& base_nodes, std::deque<JobView>& store) {
  const bool one_unit = std::find(models.on_type.begin(), models.on_type.end(), nullptr) == models.on_type.end() &&
                        (types.base >= 0 || models.on_base != nullptr);
  TypedJobViews out;
  for (size_t t = 0; t < types.parts.size(); ++t) {
    const Cluster& part = types.parts[t].cluster;
    const Cluster& where = view.gpus <= part.total().gpus ? part : cluster;
    JobView& on = store.emplace_back(view);
    SetModelFields(on, one_unit ? models.on_type[t] : nullptr, where);
    on.last_round_speedup = CarriedSpeedup(on.ideal_speedup, 1.0, /*held_ideal=*/true);
    out.on_type.push_back(&on);
  }
  if (types.base >= 0) {
    out.reference = out.on_type[types.base];
  } else {
    JobView& on_base = store.emplace_back(view);
    SetModelFields(on_base, one_unit ? models.on_base : nullptr, base_nodes);
    out.reference = &on_base;
  }
  CopyModelFields(view, *out.reference);
  return out;
}

}  // namespace synergy
