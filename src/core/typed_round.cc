#include "synergy/typed_round.h"

#include <algorithm>
#include <cmath>

#include "synergy/placement_state.h"
#include "synergy/type_program.h"

namespace synergy {

const char* TypeChoiceName(TypeChoice choice) {
  switch (choice) {
    case TypeChoice::kFirstFit: return "first-fit";
    case TypeChoice::kGpuThroughput: return "gpu-throughput";
    case TypeChoice::kBestAllocation: return "best-allocation";
    case TypeChoice::kProgram: return "program";
  }
  return "unknown";
}

namespace {
constexpr TypeChoice kChoices[] = {TypeChoice::kFirstFit, TypeChoice::kGpuThroughput, TypeChoice::kBestAllocation,
                                   TypeChoice::kProgram};
}  // namespace

std::optional<TypeChoice> TypeChoiceNamed(std::string_view name) {
  for (TypeChoice c : kChoices) {
    if (name == TypeChoiceName(c)) return c;
  }
  return std::nullopt;
}

std::vector<std::string> TypeChoiceNames() {
  std::vector<std::string> names;
  for (TypeChoice c : kChoices) names.push_back(TypeChoiceName(c));
  return names;
}

namespace {

// The first type (in the cluster's order) with `gpus` GPUs free, or -1.
int FirstFit(int gpus, const std::vector<int>& free_gpus) {
  for (size_t t = 0; t < free_gpus.size(); ++t) {
    if (free_gpus[t] >= gpus) return static_cast<int>(t);
  }
  return -1;
}

// What a job's ideal demand on a type asks beyond its share there (below 0:
// what it leaves of the share).
struct Extra {
  double cpus = 0;
  double mem_gb = 0;
};

}  // namespace

std::vector<double> RelativeThroughputAtShare(const std::vector<const JobView*>& views) {
  double fastest = HUGE_VAL;
  for (const JobView* v : views) fastest = std::min(fastest, v->iteration_time_s);
  std::vector<double> out;
  for (const JobView* v : views) out.push_back(fastest / v->iteration_time_s);
  return out;
}

std::vector<int> ChooseGpuTypes(const std::vector<const JobView*>& runnable,
                                const std::unordered_map<JobId, std::vector<const JobView*>>& on_type,
                                const std::vector<TypeRoom>& rooms, TypeChoice choice) {
  const size_t n = runnable.size();
  const size_t types = rooms.size();
  std::vector<int> chosen(n, -1);
  std::vector<int> free_gpus;
  for (const TypeRoom& r : rooms) free_gpus.push_back(r.gpus);
  if (choice == TypeChoice::kFirstFit) {
    for (size_t i = 0; i < n; ++i) {
      chosen[i] = FirstFit(runnable[i]->gpus, free_gpus);
      if (chosen[i] >= 0) free_gpus[chosen[i]] -= runnable[i]->gpus;
    }
    return chosen;
  }
  // at_share[i][t], at_ideal[i][t]: job i's throughput on type t relative to
  // its best at the share on any type; extra[i][t]: its ideal beyond the share.
  std::vector<std::vector<double>> at_share(n, std::vector<double>(types));
  std::vector<std::vector<double>> at_ideal(n, std::vector<double>(types));
  std::vector<std::vector<Extra>> extra(n, std::vector<Extra>(types));
  for (size_t i = 0; i < n; ++i) {
    const std::vector<const JobView*>& views = on_type.at(runnable[i]->id);
    const std::vector<double> relative = RelativeThroughputAtShare(views);
    for (size_t t = 0; t < types; ++t) {
      const JobView& v = *views[t];
      at_share[i][t] = relative[t];
      at_ideal[i][t] = at_share[i][t] * std::max(1.0, v.ideal_speedup);
      const Resources& share = rooms[t].share_per_gpu;
      extra[i][t] = Extra{v.ideal_demand.cpus - share.cpus * v.gpus, v.ideal_demand.mem_gb - share.mem_gb * v.gpus};
    }
  }
  // What jobs placed on a type leave of their shares, for others' ideals.
  std::vector<Extra> surplus(types);
  auto funded = [&](size_t i, size_t t) {
    const Extra& e = extra[i][t];
    return e.cpus <= surplus[t].cpus + 1e-9 && e.mem_gb <= surplus[t].mem_gb + 1e-9;
  };
  auto value = [&](size_t i, size_t t) {
    if (choice == TypeChoice::kGpuThroughput) return at_share[i][t];
    return funded(i, t) ? at_ideal[i][t] : at_share[i][t];
  };
  // Greedy by regret at the share: of the jobs left, the one whose best
  // type with room beats its second best by most (at the share: the GPU
  // side) goes next; runnable order on ties. It takes the type with room
  // where its value is highest (by best allocation: funded there or not).
  std::vector<bool> open(n, true);
  for (size_t left = n; left > 0;) {
    size_t pick = n;
    double pick_regret = -1;
    for (size_t i = 0; i < n; ++i) {
      if (!open[i]) continue;
      double best = -1, second = 0;
      for (size_t t = 0; t < types; ++t) {
        if (free_gpus[t] < runnable[i]->gpus) continue;
        const double v = at_share[i][t];
        if (v > best) {
          second = std::max(second, best);
          best = v;
        } else {
          second = std::max(second, v);
        }
      }
      if (best < 0) {  // no type has its GPUs free: it waits
        open[i] = false;
        --left;
        continue;
      }
      if (best - second > pick_regret) {
        pick = i;
        pick_regret = best - second;
      }
    }
    if (pick == n) break;
    open[pick] = false;
    --left;
    // Its best type where the jobs still open all fit after it, taken first
    // fit in runnable order (so a choice never leaves a job of the set out);
    // first fit itself keeps that.
    int type = -1;
    double type_value = -1;
    for (size_t t = 0; t < types; ++t) {
      if (free_gpus[t] < runnable[pick]->gpus) continue;
      const double v = value(pick, t);
      if (v <= type_value) continue;
      free_gpus[t] -= runnable[pick]->gpus;
      std::vector<int> room = free_gpus;
      free_gpus[t] += runnable[pick]->gpus;
      bool rest_fit = true;
      for (size_t i = 0; i < n && rest_fit; ++i) {
        if (!open[i]) continue;
        const int ff = FirstFit(runnable[i]->gpus, room);
        if (ff < 0) rest_fit = false;
        else room[ff] -= runnable[i]->gpus;
      }
      if (!rest_fit) continue;
      type_value = v;
      type = static_cast<int>(t);
    }
    if (type < 0) type = FirstFit(runnable[pick]->gpus, free_gpus);
    if (type < 0) continue;
    if (choice == TypeChoice::kBestAllocation && funded(pick, type)) {
      surplus[type].cpus -= extra[pick][type].cpus;
      surplus[type].mem_gb -= extra[pick][type].mem_gb;
    }
    chosen[pick] = type;
    free_gpus[type] -= runnable[pick]->gpus;
  }
  return chosen;
}

RoundResult ScheduleTypedRound(const TypedRoundInput& input, const Policy& policy, const Mechanism& mechanism) {
  const Cluster& whole = *input.round.cluster;
  const int types = static_cast<int>(whole.gpu_types().size());
  RoundSelection selected = SelectForRound(input.round, policy, mechanism, whole.total().gpus);
  std::vector<ServersOfType> parts;
  std::vector<int> type_gpus;
  for (int t = 0; t < types; ++t) {
    parts.push_back(ServersOfGpuType(whole, t));
    type_gpus.push_back(parts.back().cluster.total().gpus);
  }
  // The runnable set: in the policy's order, the jobs that types taken
  // first fit can hold (a job no type can hold waits, and leaves the GPUs
  // to later jobs, as a walk of the queue does), so every job of the set
  // gets a type and an earlier job is never left out for a later one.
  {
    std::vector<const JobView*> fitting;
    std::vector<int> room = type_gpus;
    for (const JobView* job : selected.order) {
      const int t = FirstFit(job->gpus, room);
      if (t < 0) continue;
      room[t] -= job->gpus;
      fitting.push_back(job);
    }
    if (policy.selection() == Selection::kCountFitFirst && mechanism.prefers_large_jobs_first()) {
      OfferLargestFirst(fitting);
    }
    selected.runnable = std::move(fitting);
  }
  std::vector<TypeRoom> rooms;
  for (int t = 0; t < types; ++t) rooms.push_back(TypeRoom{type_gpus[t], parts[t].cluster.share_per_gpu()});
  std::vector<int> chosen;
  TypeProgramChoice program;
  if (input.choice == TypeChoice::kProgram) {
    std::vector<const Cluster*> clusters;
    for (const ServersOfType& part : parts) clusters.push_back(&part.cluster);
    program = ChooseGpuTypesByProgram(selected.runnable, input.on_type, clusters);
    // No solution within the budget: the best-allocation greedy's choice.
    chosen = program.solved ? program.type
                            : ChooseGpuTypes(selected.runnable, input.on_type, rooms, TypeChoice::kBestAllocation);
  } else {
    chosen = ChooseGpuTypes(selected.runnable, input.on_type, rooms, input.choice);
  }

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
  if (input.choice == TypeChoice::kProgram) {
    SolverStats& s = result.plan.solver;
    s.solved = program.solved;
    s.hit_budget |= program.hit_budget;
    s.fell_back |= !program.solved;
    s.lp_bound = program.lp_bound;
    s.pooled_optimum = program.optimum;
    s.realised = 0;
    for (const Assignment& a : result.plan.assignments) {
      const std::vector<const JobView*>& views = input.on_type.at(a.job);
      s.realised += a.speedup * RelativeThroughputAtShare(views)[whole.gpu_type_of(a.slices.front().server)];
    }
  }
  result.order = std::move(selected.order);
  result.bumped = std::move(selected.bumped);
  return result;
}

}  // namespace synergy
