#include <algorithm>
#include <optional>
#include <tuple>

#include "mechanisms.h"
#include "opt_programs.h"

namespace synergy::mechanisms {
namespace {

// Synergy-OPT, the upper bound: the paper's two programs each round.
//  1. Pool the free resources into one super-machine and pick, for every
//     job of the runnable set (the candidates whose GPU counts fit, in
//     order), the profile point that maximises the sum of speedups, none
//     below proportional. Its LP relaxation is the round's bound.
//  2. Map that allocation onto the real servers with whole GPUs, minimising
//     the jobs split across servers.
// GPUs are never fractional. The paper's mapping may split a GPU's worth of
// cores across servers; here each GPU brings its job's per-GPU cores and
// memory to its server, so program 1's choice may not pack. Three mappings
// are tried and the one with the highest sum of speedups kept:
//  - largest jobs first at their choice, each stepping down its own options
//    (never below proportional) when it fits nowhere;
//  - every job at its floor (its best option within the proportional
//    share), then raised towards its choice where its servers have room;
//  - TUNE's plan, raised the same way.
// Jobs left below their choice are the cost of integrality
// (SolverStats::stepped_down). When no mapping beats TUNE's plan (or no
// solve found a solution within its budget), the round uses TUNE's plan, counted as a
// fallback.
class Opt final : public Mechanism {
 public:
  Opt(SolveBudget budget, bool group_jobs) : budget_(budget), group_jobs_(group_jobs), tune_(MakeTune()) {}
  std::string_view name() const override { return "opt"; }
  bool uses_speedup() const override { return true; }

  void PlaceFrom(Candidates& candidates, PlacementState& state) const override {
    const std::vector<const JobView*> jobs = RunnableSet(candidates, state.free_gpus());
    if (jobs.empty()) return;
    SolverStats stats;
    stats.solved = true;

    const Cluster& cluster = state.cluster();
    std::vector<PooledJob> pooled;
    pooled.reserve(jobs.size());
    RoundOptions round_options(cluster);
    for (const JobView* job : jobs) pooled.push_back(PooledJob{job->gpus, round_options.For(*job)});
    Resources capacity;
    std::vector<FreeServer> servers;
    for (int s = 0; s < cluster.num_servers(); ++s) {
      const Resources avail = state.available(s);
      capacity += avail;
      if (avail.gpus > 0) servers.push_back(FreeServer{s, avail});
    }
    const PooledSolution best = SolvePooled(pooled, capacity, budget_, group_jobs_);
    stats.hit_budget = best.hit_budget;
    stats.lp_bound = best.lp_bound;
    stats.pooled_optimum = best.optimum;

    PlacementState by_tune = state;
    tune_->Place(jobs, by_tune);
    std::optional<PlacementState> by_opt;
    if (best.ok) {
      Mapped mapped = MapLargestFirst(jobs, pooled, best.choice, state);
      for (Mapped other : {MapByUpgrading(jobs, pooled, best.choice, state),
                           MapFromTune(jobs, pooled, best.choice, by_tune)}) {
        if (other.ok && (!mapped.ok || other.sum > mapped.sum + 1e-9)) mapped = std::move(other);
      }
      if (mapped.ok) {
        stats.stepped_down = mapped.stepped_down;
        if (mapped.stepped_down == 0 && mapped.pairs > FewestPairs(jobs, servers)) {
          ReduceSplits(jobs, pooled, best.choice, servers, state, mapped, stats);
        }
        by_opt = std::move(mapped.state);
      }
    }
    if (by_opt && SumOfSpeedups(*by_opt) > SumOfSpeedups(by_tune) + 1e-9) {
      state = std::move(*by_opt);
    } else {
      stats.fell_back = true;
      stats.stepped_down = 0;
      state = std::move(by_tune);
    }
    for (JobId id : state.placed_jobs()) {
      const Assignment& a = *state.Find(id);
      stats.realised += a.speedup;
      if (a.num_servers() > 1) ++stats.split_jobs;
    }
    state.solver_stats() = stats;
  }

 private:
  // The runnable set: the candidates whose GPU counts fit in `free` GPUs,
  // in order.
  static std::vector<const JobView*> RunnableSet(Candidates& candidates, int free) {
    std::vector<const JobView*> jobs;
    while (free > 0) {
      const JobView* job = candidates.NextFitting(free);
      if (job == nullptr) break;
      jobs.push_back(job);
      free -= job->gpus;
    }
    return jobs;
  }

  struct Mapped {
    bool ok = false;
    PlacementState state;
    int stepped_down = 0;  // jobs placed below program 1's choice
    int pairs = 0;         // (job, server) pairs
    double sum = 0;        // sum of speedups
  };

  // Program 1's choice onto the servers: largest jobs first (GPUs, then
  // cores, then memory), each where PlacementState::Fit puts it (on one
  // server where it fits whole), stepping down its options when it fits
  // nowhere. Not ok when a job fits not even at proportional.
  static Mapped MapLargestFirst(const std::vector<const JobView*>& jobs,
                                const std::vector<PooledJob>& pooled,
                                const std::vector<int>& choice, const PlacementState& state) {
    Mapped out{false, state, 0, 0};
    std::vector<size_t> order(jobs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto chosen = [&](size_t j) -> const Option& { return pooled[j].options[choice[j]]; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::make_tuple(jobs[a]->gpus, chosen(a).per_gpu.cpus, chosen(a).per_gpu.mem_gb) >
             std::make_tuple(jobs[b]->gpus, chosen(b).per_gpu.cpus, chosen(b).per_gpu.mem_gb);
    });
    for (size_t j : order) {
      const std::vector<Option>& options = pooled[j].options;
      bool placed = false;
      // Options are best first; those after the choice are the step-downs.
      for (size_t k = choice[j]; k < options.size() && !placed; ++k) {
        const Option& o = options[k];
        placed = TryPlace(out.state, jobs[j]->id, DemandFor(o, jobs[j]->gpus), o.speedup, o.ideal);
      }
      if (!placed) return out;
      const Assignment& a = *out.state.Find(jobs[j]->id);
      out.pairs += a.num_servers();
      out.sum += a.speedup;
      if (a.speedup < chosen(j).speedup - 1e-12) ++out.stepped_down;
    }
    out.ok = true;
    return out;
  }

  // The mapping that always exists: every job first at its floor, the best
  // of its options no larger than the proportional share in any dimension
  // (largest jobs first; the GPUs fit, so the shares do, so the floors do),
  // then each job, most speedup to gain first, raised on the servers it
  // holds to the best of its options from program 1's choice down that
  // fits there.
  static Mapped MapByUpgrading(const std::vector<const JobView*>& jobs,
                               const std::vector<PooledJob>& pooled,
                               const std::vector<int>& choice, const PlacementState& state) {
    Mapped out{false, state, 0, 0};
    const Resources& share = state.cluster().share_per_gpu();
    std::vector<size_t> order(jobs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return jobs[a]->gpus > jobs[b]->gpus; });
    for (size_t j : order) {
      const Option* floor = nullptr;
      for (const Option& o : pooled[j].options) {
        if (o.per_gpu.FitsIn(share)) {
          floor = &o;
          break;
        }
      }
      if (floor == nullptr ||
          !TryPlace(out.state, jobs[j]->id, DemandFor(*floor, jobs[j]->gpus), floor->speedup,
                    floor->ideal)) {
        return out;
      }
    }
    Upgrade(jobs, pooled, choice, out);
    return out;
  }

  // Raises each job, most speedup to gain first, on the servers it holds to
  // the best of its options from program 1's choice down that fits there
  // and beats what it has; then counts the mapping. Every job is placed.
  static void Upgrade(const std::vector<const JobView*>& jobs, const std::vector<PooledJob>& pooled,
                      const std::vector<int>& choice, Mapped& out) {
    std::vector<size_t> order(jobs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto gain = [&](size_t j) {
      return (pooled[j].options[choice[j]].speedup - out.state.Find(jobs[j]->id)->speedup) *
             jobs[j]->gpus;
    };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return gain(a) > gain(b); });
    out.pairs = 0;
    out.sum = 0;
    out.stepped_down = 0;
    for (size_t j : order) {
      const Assignment& held = *out.state.Find(jobs[j]->id);
      const std::vector<Option>& options = pooled[j].options;
      for (size_t k = choice[j]; k < options.size() && options[k].speedup > held.speedup; ++k) {
        Slices slices = held.slices;
        bool fits = true;
        for (Slice& s : slices) {
          const Resources wanted = DemandFor(options[k], s.resources.gpus);
          fits = fits && wanted.FitsIn(out.state.available(s.server) + s.resources);
          s.resources = wanted;
        }
        if (!fits) continue;
        out.state.Replace(jobs[j]->id, std::move(slices), options[k].speedup, options[k].ideal);
        break;
      }
      const Assignment& now = *out.state.Find(jobs[j]->id);
      out.pairs += now.num_servers();
      out.sum += now.speedup;
      if (now.speedup < options[choice[j]].speedup - 1e-12) ++out.stepped_down;
    }
    out.ok = true;
  }

  // TUNE's plan, with each job raised towards program 1's choice where its
  // servers have room: never below TUNE.
  static Mapped MapFromTune(const std::vector<const JobView*>& jobs,
                            const std::vector<PooledJob>& pooled, const std::vector<int>& choice,
                            const PlacementState& by_tune) {
    Mapped out{false, by_tune, 0, 0};
    for (const JobView* job : jobs) {
      if (out.state.Find(job->id) == nullptr) return out;
    }
    Upgrade(jobs, pooled, choice, out);
    return out;
  }

  // A lower bound on (job, server) pairs: a job needs at least
  // ceil(gpus / largest free server) servers.
  static int FewestPairs(const std::vector<const JobView*>& jobs,
                         const std::vector<FreeServer>& servers) {
    int largest = 1;
    for (const FreeServer& s : servers) largest = std::max(largest, s.free.gpus);
    int pairs = 0;
    for (const JobView* j : jobs) pairs += (j->gpus + largest - 1) / largest;
    return pairs;
  }

  // Program 2 proper: the mapping with fewest split jobs, started from the
  // largest-first mapping (its incumbent). Replaces `mapped` when it splits
  // fewer jobs.
  void ReduceSplits(const std::vector<const JobView*>& jobs, const std::vector<PooledJob>& pooled,
                    const std::vector<int>& choice, const std::vector<FreeServer>& servers,
                    const PlacementState& state, Mapped& mapped, SolverStats& stats) const {
    std::vector<PackedJob> packed;
    std::vector<std::vector<std::pair<int, int>>> incumbent;
    for (size_t j = 0; j < jobs.size(); ++j) {
      packed.push_back(PackedJob{jobs[j]->gpus, pooled[j].options[choice[j]].per_gpu});
      incumbent.emplace_back();
      for (const Slice& s : mapped.state.Find(jobs[j]->id)->slices) {
        incumbent.back().emplace_back(s.server, s.resources.gpus);
      }
    }
    const Packing packing = SolvePacking(packed, servers, incumbent, budget_);
    stats.hit_budget = stats.hit_budget || packing.hit_budget;
    if (!packing.ok) return;
    int pairs = 0;
    for (const auto& on : packing.gpus_on) pairs += static_cast<int>(on.size());
    if (pairs >= mapped.pairs) return;
    // Commit on a copy; GLPK's tolerances could in principle let a slice
    // exceed a server, and then the largest-first mapping stands.
    PlacementState packed_state = state;
    std::vector<Resources> used(state.cluster().num_servers());
    for (size_t j = 0; j < jobs.size(); ++j) {
      const Option& o = pooled[j].options[choice[j]];
      Assignment a{jobs[j]->id, {}, o.speedup, o.ideal};
      for (const auto& [server, gpus] : packing.gpus_on[j]) {
        const Resources r = DemandFor(o, gpus);
        used[server] += r;
        if (!used[server].FitsIn(state.available(server))) return;
        a.slices.push_back(Slice{server, r});
      }
      packed_state.Commit(std::move(a));
    }
    mapped.state = std::move(packed_state);
    mapped.pairs = pairs;
  }

  static double SumOfSpeedups(const PlacementState& state) {
    double sum = 0;
    for (JobId id : state.placed_jobs()) sum += state.Find(id)->speedup;
    return sum;
  }

  SolveBudget budget_;
  bool group_jobs_;
  std::unique_ptr<Mechanism> tune_;
};

}  // namespace

std::unique_ptr<Mechanism> MakeOpt(const MechanismOptions& options) {
  return std::make_unique<Opt>(
      SolveBudget{options.opt_simplex_iterations, options.opt_branch_nodes, options.opt_time_limit_ms},
      options.opt_group_jobs);
}

}  // namespace synergy::mechanisms
