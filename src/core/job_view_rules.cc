#include "synergy/job_view_rules.h"

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

}  // namespace synergy
