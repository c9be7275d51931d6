#include "synergy/typed_round.h"

#include <algorithm>
#include <numeric>

#include "synergy/placement_state.h"

namespace synergy {

const char* TypeChoiceName(TypeChoice choice) {
  switch (choice) {
    case TypeChoice::kFirstFit: return "first-fit";
    case TypeChoice::kGpuThroughput: return "gpu-throughput";
    case TypeChoice::kBestAllocation: return "best-allocation";
  }
  return "unknown";
}

namespace {

// Iterations a second of `view` on its type: at the proportional share, or
// at its ideal demand.
double RateOf(const JobView& view, TypeChoice choice) {
  const double at_share = 1.0 / view.iteration_time_s;
  return choice == TypeChoice::kBestAllocation ? at_share * view.ideal_speedup : at_share;
}

int FirstFit(int gpus, const std::vector<int>& free_gpus) {
  for (size_t t = 0; t < free_gpus.size(); ++t) {
    if (free_gpus[t] >= gpus) return static_cast<int>(t);
  }
  return -1;
}

}  // namespace

std::vector<int> ChooseGpuTypes(const std::vector<const JobView*>& runnable,
                                const std::unordered_map<JobId, std::vector<const JobView*>>& on_type,
                                std::vector<int> free_gpus, TypeChoice choice) {
  std::vector<int> chosen(runnable.size(), -1);
  std::vector<size_t> by_gain(runnable.size());
  std::iota(by_gain.begin(), by_gain.end(), 0);
  if (choice != TypeChoice::kFirstFit) {
    // rates[i][t]: job i's iterations a second on type t.
    std::vector<std::vector<double>> rates(runnable.size());
    std::vector<double> gain(runnable.size(), 1.0);
    for (size_t i = 0; i < runnable.size(); ++i) {
      for (const JobView* v : on_type.at(runnable[i]->id)) rates[i].push_back(RateOf(*v, choice));
      const auto [lo, hi] = std::minmax_element(rates[i].begin(), rates[i].end());
      gain[i] = *hi / *lo;
    }
    std::stable_sort(by_gain.begin(), by_gain.end(), [&](size_t a, size_t b) { return gain[a] > gain[b]; });
    for (size_t i : by_gain) {
      int best = -1;
      for (size_t t = 0; t < free_gpus.size(); ++t) {
        if (free_gpus[t] < runnable[i]->gpus) continue;
        if (best < 0 || rates[i][t] > rates[i][best]) best = static_cast<int>(t);
      }
      if (best < 0) continue;
      chosen[i] = best;
      free_gpus[best] -= runnable[i]->gpus;
    }
  }
  // First fit, in runnable order, for what is left.
  for (size_t i = 0; i < runnable.size(); ++i) {
    if (chosen[i] >= 0) continue;
    chosen[i] = FirstFit(runnable[i]->gpus, free_gpus);
    if (chosen[i] >= 0) free_gpus[chosen[i]] -= runnable[i]->gpus;
  }
  return chosen;
}

RoundResult ScheduleTypedRound(const TypedRoundInput& input, const Policy& policy, const Mechanism& mechanism) {
  const Cluster& whole = *input.round.cluster;
  const int types = static_cast<int>(whole.gpu_types().size());
  RoundSelection selected = SelectForRound(input.round, policy, mechanism, whole.total().gpus);
  if (policy.selection() == Selection::kWalkQueue) {
    // The walk's jobs whose GPUs fit, in order: a type is then chosen among
    // jobs that would run, and a later job never takes an earlier one's.
    std::vector<const JobView*> fitting;
    int free = whole.total().gpus;
    for (const JobView* job : selected.runnable) {
      if (job->gpus > free) continue;
      fitting.push_back(job);
      free -= job->gpus;
    }
    selected.runnable = std::move(fitting);
  }
  std::vector<ServersOfType> parts;
  std::vector<int> free_gpus;
  for (int t = 0; t < types; ++t) {
    parts.push_back(ServersOfGpuType(whole, t));
    free_gpus.push_back(parts.back().cluster.total().gpus);
  }
  const std::vector<int> chosen = ChooseGpuTypes(selected.runnable, input.on_type, free_gpus, input.choice);

  RoundResult result;
  for (int t = 0; t < types; ++t) {
    std::vector<const JobView*> here;
    for (size_t i = 0; i < selected.runnable.size(); ++i) {
      if (chosen[i] == t) here.push_back(input.on_type.at(selected.runnable[i]->id)[t]);
    }
    if (here.empty()) continue;
    PlacementState state(parts[t].cluster, input.round.gpu_placement);
    mechanism.Place(here, state);
    Plan plan = state.TakePlan();
    for (Assignment& a : plan.assignments) {
      for (Slice& s : a.slices) s.server = parts[t].servers_of[s.server];
      result.plan.assignments.push_back(std::move(a));
    }
    result.plan.unplaced_after_revert.insert(result.plan.unplaced_after_revert.end(),
                                             plan.unplaced_after_revert.begin(), plan.unplaced_after_revert.end());
    SolverStats& s = result.plan.solver;
    s.solved |= plan.solver.solved;
    s.lp_bound += plan.solver.lp_bound;
    s.pooled_optimum += plan.solver.pooled_optimum;
    s.realised += plan.solver.realised;
    s.hit_budget |= plan.solver.hit_budget;
    s.fell_back |= plan.solver.fell_back;
    s.split_jobs += plan.solver.split_jobs;
    s.stepped_down += plan.solver.stepped_down;
  }
  result.order = std::move(selected.order);
  result.bumped = std::move(selected.bumped);
  return result;
}

}  // namespace synergy
