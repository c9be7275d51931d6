// Decision time of one scheduling round (policy order + selection +
// placement) at growing cluster sizes, with a queue of twice as many jobs
// as GPUs, drawn from the reference's synthetic workload.
#include <benchmark/benchmark.h>

#include "sim/workload.h"
#include "synergy/default_configs.h"
#include "synergy/job_view_rules.h"
#include "synergy/round.h"

namespace synergy {
namespace {

struct Setup {
  Cluster cluster;
  ModelZoo zoo;
  std::vector<JobView> jobs;
};

Setup Make(int gpus) {
  Setup s;
  std::vector<ServerSpec> servers;
  for (int i = 0; i < gpus / 8; ++i) servers.push_back({"s", Resources{8, 24, 500, 500}});
  s.cluster = Cluster(std::move(servers));
  s.zoo = *DefaultModelZoo();
  sim::WorkloadGenerator gen(sim::GeneratorConfig{}, s.zoo);
  for (int i = 0; i < 2 * gpus; ++i) {
    sim::JobSpec spec = gen.Next();
    JobView v;
    v.id = spec.id;
    v.gpus = spec.gpus;
    v.arrival_s = spec.arrival_s;
    // The zoo's vector keeps its elements when Setup moves: the profile stays valid.
    SetModelFields(v, &s.zoo.model(spec.model), s.cluster);
    v.last_round_speedup = v.ideal_speedup;
    v.total_iterations = spec.iterations;
    v.remaining_iterations = spec.iterations;
    s.jobs.push_back(v);
  }
  return s;
}

void Round(benchmark::State& state, const char* policy_name, const char* mechanism_name,
           const MechanismOptions& options = {}) {
  Setup s = Make(static_cast<int>(state.range(0)));
  auto policy = *MakePolicy(policy_name);
  auto mechanism = *MakeMechanism(mechanism_name, options);
  RoundInput in;
  in.now_s = 1e6;
  in.cluster = &s.cluster;
  for (const JobView& j : s.jobs) in.queue.push_back(&j);
  size_t placed = 0;
  double speedups = 0;
  SolverStats solver;
  for (auto _ : state) {
    RoundResult r = ScheduleRound(in, *policy, *mechanism);
    placed = r.plan.assignments.size();
    speedups = 0;
    for (const Assignment& a : r.plan.assignments) speedups += a.speedup;
    solver = r.plan.solver;
    benchmark::DoNotOptimize(r);
  }
  state.counters["jobs_placed"] = static_cast<double>(placed);
  state.counters["queue"] = static_cast<double>(s.jobs.size());
  state.counters["sum_speedup"] = speedups;
  if (solver.solved) {
    state.counters["lp_bound"] = solver.lp_bound;
    state.counters["fell_back"] = solver.fell_back;
    state.counters["hit_budget"] = solver.hit_budget;
  }
}

void BM_TuneRound(benchmark::State& state) { Round(state, "fifo", "tune"); }
void BM_GreedyRound(benchmark::State& state) { Round(state, "fifo", "greedy"); }
void BM_ProportionalRound(benchmark::State& state) { Round(state, "fifo", "proportional"); }
void BM_TuneRoundLas(benchmark::State& state) { Round(state, "las", "tune"); }
// TUNE, TUNE-graded and OPT side by side at 32, 128 and 512 GPUs (issue 3).
void BM_CompareTune(benchmark::State& state) { Round(state, "fifo", "tune"); }
void BM_CompareTuneGraded(benchmark::State& state) { Round(state, "fifo", "tune-graded"); }
void BM_CompareOpt(benchmark::State& state) { Round(state, "fifo", "opt"); }
// The paper's form of program 1: a binary variable per (job, option).
void BM_CompareOptPerJob(benchmark::State& state) {
  MechanismOptions options;
  options.opt_group_jobs = false;
  options.opt_branch_nodes = 20000;
  Round(state, "fifo", "opt", options);
}

BENCHMARK(BM_TuneRound)->Arg(128)->Arg(512)->Arg(4096)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TuneRoundLas)->Arg(128)->Arg(512)->Arg(4096)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompareTune)->Arg(32)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompareTuneGraded)->Arg(32)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompareOpt)->Arg(32)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompareOptPerJob)->Arg(32)->Arg(64)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GreedyRound)->Arg(512)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProportionalRound)->Arg(512)->Arg(16384)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace synergy
