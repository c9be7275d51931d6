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

namespace {

// How much a job's best type with its GPUs free beats its second best, at
// the share (`at_share`: its throughput on each type); -1 where no type
// has its GPUs free.
double RegretAtShare(const std::vector<double>& at_share, const std::vector<int>& free_gpus, int gpus) {
  double best = -1, second = 0;
  for (size_t t = 0; t < at_share.size(); ++t) {
    if (free_gpus[t] < gpus) continue;
    const double v = at_share[t];
    if (v > best) {
      second = std::max(second, best);
      best = v;
    } else {
      second = std::max(second, v);
    }
  }
  return best < 0 ? -1 : best - second;
}

// Of the open jobs, the one whose best type with room beats its second
// best by most at the share (runnable order on ties), or runnable.size()
// when none is left; an open job no type has room for waits (closed, and
// `left` counts it).
size_t NextByRegret(const std::vector<const JobView*>& runnable, const std::vector<std::vector<double>>& at_share,
                    const std::vector<int>& free_gpus, std::vector<bool>& open, size_t& left) {
  size_t pick = runnable.size();
  double pick_regret = -1;
  for (size_t i = 0; i < runnable.size(); ++i) {
    if (!open[i]) continue;
    const double regret = RegretAtShare(at_share[i], free_gpus, runnable[i]->gpus);
    if (regret < 0) {
      open[i] = false;
      --left;
      continue;
    }
    if (regret > pick_regret) {
      pick = i;
      pick_regret = regret;
    }
  }
  return pick;
}

// Whether the runnable jobs still `open` all fit, first fit in runnable
// order, in `room` (free GPUs per type).
bool OpenJobsFit(const std::vector<const JobView*>& runnable, const std::vector<bool>& open, std::vector<int> room) {
  for (size_t i = 0; i < runnable.size(); ++i) {
    if (!open[i]) continue;
    const int ff = FirstFit(runnable[i]->gpus, room);
    if (ff < 0) return false;
    room[ff] -= runnable[i]->gpus;
  }
  return true;
}

// The type for runnable job `pick`: its best by `value_on` where the jobs
// still open all fit after it, taken first fit in runnable order (so a
// choice never leaves a job of the set out), else its first fit (which
// keeps that too); -1 where no type has its GPUs free.
template <typename ValueOn>
int TypeFor(size_t pick, const std::vector<const JobView*>& runnable, const std::vector<bool>& open,
            const std::vector<int>& free_gpus, ValueOn value_on) {
  int type = -1;
  double type_value = -1;
  for (size_t t = 0; t < free_gpus.size(); ++t) {
    if (free_gpus[t] < runnable[pick]->gpus) continue;
    const double v = value_on(t);
    if (v <= type_value) continue;
    std::vector<int> room = free_gpus;
    room[t] -= runnable[pick]->gpus;
    if (!OpenJobsFit(runnable, open, std::move(room))) continue;
    type_value = v;
    type = static_cast<int>(t);
  }
  return type >= 0 ? type : FirstFit(runnable[pick]->gpus, free_gpus);
}

// Per runnable job i and type t: at_share[i][t] and at_ideal[i][t], its
// throughput there (at the share, at its ideal) relative to its best at
// the share on any type; extra[i][t], its ideal beyond the share there.
struct TypeValues {
  std::vector<std::vector<double>> at_share, at_ideal;
  std::vector<std::vector<Extra>> extra;
};
TypeValues ValuesOnTypes(const std::vector<const JobView*>& runnable,
                         const std::unordered_map<JobId, std::vector<const JobView*>>& on_type,
                         const std::vector<TypeRoom>& rooms) {
  const size_t n = runnable.size();
  const size_t types = rooms.size();
  TypeValues out{std::vector<std::vector<double>>(n, std::vector<double>(types)),
                 std::vector<std::vector<double>>(n, std::vector<double>(types)),
                 std::vector<std::vector<Extra>>(n, std::vector<Extra>(types))};
  for (size_t i = 0; i < n; ++i) {
    const std::vector<const JobView*>& views = on_type.at(runnable[i]->id);
    const std::vector<double> relative = RelativeThroughputAtShare(views);
    for (size_t t = 0; t < types; ++t) {
      const JobView& v = *views[t];
      out.at_share[i][t] = relative[t];
      out.at_ideal[i][t] = out.at_share[i][t] * std::max(1.0, v.ideal_speedup);
      const Resources& share = rooms[t].share_per_gpu;
      out.extra[i][t] = Extra{v.ideal_demand.cpus - share.cpus * v.gpus, v.ideal_demand.mem_gb - share.mem_gb * v.gpus};
    }
  }
  return out;
}

}  // namespace

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
  const TypeValues values = ValuesOnTypes(runnable, on_type, rooms);
  const std::vector<std::vector<double>>& at_share = values.at_share;
  const std::vector<std::vector<double>>& at_ideal = values.at_ideal;
  const std::vector<std::vector<Extra>>& extra = values.extra;
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
    const size_t pick = NextByRegret(runnable, at_share, free_gpus, open, left);
    if (pick == n) break;
    open[pick] = false;
    --left;
    const int type = TypeFor(pick, runnable, open, free_gpus, [&](size_t t) { return value(pick, t); });
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

namespace {

// The runnable set: in the policy's order, the jobs that types taken first
// fit can hold (a job no type can hold waits, and leaves the GPUs to later
// jobs, as a walk of the queue does), so every job of the set gets a type
// and an earlier job is never left out for a later one.
std::vector<const JobView*> FittingByType(const std::vector<const JobView*>& order, std::vector<int> room) {
  std::vector<const JobView*> fitting;
  for (const JobView* job : order) {
    const int t = FirstFit(job->gpus, room);
    if (t < 0) continue;
    room[t] -= job->gpus;
    fitting.push_back(job);
  }
  return fitting;
}

// A round whose types the three-dimensional program chose: its counters
// are the program's, and what the plan realises is counted in the units
// the program maximised (each job's throughput relative to its best type).
void NoteProgram(const TypeProgramChoice& program, const TypedRoundInput& input, Plan& plan) {
  const Cluster& whole = *input.round.cluster;
  SolverStats& s = plan.solver;
  s.solved = program.solved;
  s.hit_budget |= program.hit_budget;
  s.fell_back |= !program.solved;
  s.lp_bound = program.lp_bound;
  s.pooled_optimum = program.optimum;
  s.realised = 0;
  for (const Assignment& a : plan.assignments) {
    const std::vector<const JobView*>& views = input.on_type.at(a.job);
    s.realised += a.speedup * RelativeThroughputAtShare(views)[whole.gpu_type_of(a.slices.front().server)];
  }
}

// A type's plan's solver counters, added to the round's.
void AddSolverStats(const SolverStats& type, SolverStats& round) {
  round.solved |= type.solved;
  round.lp_bound += type.lp_bound;
  round.pooled_optimum += type.pooled_optimum;
  round.realised += type.realised;
  round.hit_budget |= type.hit_budget;
  round.fell_back |= type.fell_back;
  round.split_jobs += type.split_jobs;
  round.stepped_down += type.stepped_down;
}

}  // namespace

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
  selected.runnable = FittingByType(selected.order, type_gpus);
  if (policy.selection() == Selection::kCountFitFirst && mechanism.prefers_large_jobs_first()) {
    OfferLargestFirst(selected.runnable);
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
    AddSolverStats(plan.solver, result.plan.solver);
  }
  if (input.choice == TypeChoice::kProgram) NoteProgram(program, input, result.plan);
  result.order = std::move(selected.order);
  result.bumped = std::move(selected.bumped);
  return result;
}

}  // namespace synergy
