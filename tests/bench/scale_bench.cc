// Scale (issue 20): how the simulator's cost grows with the work, and
// rounds at tens of thousands of GPUs. Each figure the issue names:
//   - Window/START: FIFO-TUNE, load 9, seed 42, reference-compatible, the
//     1,000 jobs from START on the default 128-GPU cluster (the issue's
//     4000, 8000 and 16000 windows; linear cost keeps them within 4x);
//   - Generated/100000/50: 100,000 generated jobs on 1,024 GPUs (the
//     default cluster eight times over) at a load that keeps it about 90%
//     busy (Generated/20000/LOAD: the busy fraction of nearby loads);
//   - Replay1M: a replay of 1,000,000 generated jobs on the same cluster;
//   - Round/MECHANISM/GPUS: one FIFO round of TUNE, TUNE-graded and OPT at
//     16,384 and 65,536 GPUs with a queue of twice the GPUs.
// Counters say what each run did (jobs finished, busy fraction, peak
// resident memory), so a faster run that does less shows. Each run is long:
// one iteration each (--benchmark_filter picks one).
#include <functional>
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "sim/simulator.h"
#include "sim/workload.h"
#include "synergy/default_configs.h"
#include "synergy/job_view_rules.h"
#include "synergy/round.h"
#include "synergy/standing_queue.h"

namespace synergy::sim {
namespace {

SimConfig Config(const Cluster& c, const ModelZoo& z, const Policy& p, const Mechanism& m) {
  SimConfig config;
  config.cluster = &c;
  config.zoo = &z;
  config.policy = &p;
  config.mechanism = &m;
  config.reference_compatible = true;
  return config;
}

// The default cluster `times` times over.
Cluster Replicated(int times) {
  const Cluster base = *DefaultCluster();
  std::vector<ServerSpec> servers;
  for (int t = 0; t < times; ++t) servers.insert(servers.end(), base.servers().begin(), base.servers().end());
  return Cluster(std::move(servers));
}

double PeakResidentMb() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// The share of GPU-time that was allocated over the run's rounds.
double BusyFraction(const SimResult& r, const Cluster& cluster) {
  double busy = 0;
  for (const RoundSample& s : r.rounds) busy += s.allocated.gpus;
  return r.rounds.empty() ? 0 : busy / (static_cast<double>(r.rounds.size()) * cluster.total().gpus);
}

void Report(benchmark::State& state, const SimResult& r, const Cluster& cluster) {
  int64_t finished = 0;
  for (const JobRecord& j : r.jobs) finished += j.finish_s >= 0;
  state.counters["jobs"] = static_cast<double>(r.jobs.size());
  state.counters["finished"] = static_cast<double>(finished);
  state.counters["rounds"] = static_cast<double>(r.rounds.size());
  state.counters["busy"] = BusyFraction(r, cluster);
  state.counters["peak_rss_mb"] = PeakResidentMb();
}

// Runs `run` once an iteration, keeping its last result in `last`; on an
// error the benchmark is skipped with it and RunEach returns false.
bool RunEach(benchmark::State& state, SimResult& last, const std::function<absl::StatusOr<SimResult>()>& run) {
  for (auto _ : state) {
    absl::StatusOr<SimResult> r = run();
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return false;
    }
    last = *std::move(r);
  }
  return true;
}

void BM_Window(benchmark::State& state) {
  const JobId from = state.range(0);
  Cluster cluster = *DefaultCluster();
  ModelZoo zoo = *DefaultModelZoo();
  auto policy = *MakePolicy("fifo");
  auto mechanism = *MakeMechanism("tune");
  SimResult last;
  if (!RunEach(state, last, [&]() -> absl::StatusOr<SimResult> {
        WorkloadGenerator gen(GeneratorConfig{}, zoo);
        return RunGenerated(Config(cluster, zoo, *policy, *mechanism), gen, from, from + 1000, nullptr);
      })) {
    return;
  }
  Report(state, last, cluster);
}

// Load 9 keeps the 128-GPU default cluster saturated; 8 times the GPUs
// are about 90% busy at kBusyLoad1024 jobs an hour (the busy counter says;
// at 60 the queue grows without end, as at load 9 on 128 GPUs).
constexpr double kBusyLoad1024 = 33;

// range(0) jobs generated at range(1) jobs an hour on 1,024 GPUs, all
// measured.
void BM_Generated(benchmark::State& state) {
  Cluster cluster = Replicated(8);
  ModelZoo zoo = *DefaultModelZoo();
  auto policy = *MakePolicy("fifo");
  auto mechanism = *MakeMechanism("tune");
  GeneratorConfig g;
  g.load_jobs_per_hour = static_cast<double>(state.range(1));
  SimResult last;
  if (!RunEach(state, last, [&]() -> absl::StatusOr<SimResult> {
        WorkloadGenerator gen(g, zoo);
        return RunGenerated(Config(cluster, zoo, *policy, *mechanism), gen, 0, state.range(0), nullptr);
      })) {
    return;
  }
  Report(state, last, cluster);
}

// Default execution (the CLI's) of range(0) jobs at kBusyLoad1024 on 1,024
// GPUs, with launches between rounds (range(1) 1) or without (0): the
// cost of an event at every finish and arrival, and of the sorted rounds
// such runs use instead of the standing queue.
void BM_DefaultModeBetweenRounds(benchmark::State& state) {
  Cluster cluster = Replicated(8);
  ModelZoo zoo = *DefaultModelZoo();
  auto policy = *MakePolicy("fifo");
  auto mechanism = *MakeMechanism("tune");
  GeneratorConfig g;
  g.load_jobs_per_hour = kBusyLoad1024;
  SimResult last;
  if (!RunEach(state, last, [&]() -> absl::StatusOr<SimResult> {
        WorkloadGenerator gen(g, zoo);
        SimConfig config = Config(cluster, zoo, *policy, *mechanism);
        config.reference_compatible = false;
        config.launch_between_rounds = state.range(1) != 0;
        return RunGenerated(config, gen, 0, state.range(0), nullptr);
      })) {
    return;
  }
  Report(state, last, cluster);
  state.counters["launches"] = static_cast<double>(last.launches_between_rounds);
}

void BM_Replay1M(benchmark::State& state) {
  Cluster cluster = Replicated(8);
  ModelZoo zoo = *DefaultModelZoo();
  auto policy = *MakePolicy("fifo");
  auto mechanism = *MakeMechanism("tune");
  GeneratorConfig g;
  g.load_jobs_per_hour = kBusyLoad1024;
  std::vector<JobSpec> trace;
  {
    WorkloadGenerator gen(g, zoo);
    trace.reserve(static_cast<size_t>(state.range(0)));
    for (int64_t i = 0; i < state.range(0); ++i) trace.push_back(gen.Next());
  }
  SimResult last;
  if (!RunEach(state, last, [&]() -> absl::StatusOr<SimResult> {
        return RunTrace(Config(cluster, zoo, *policy, *mechanism), trace);
      })) {
    return;
  }
  Report(state, last, cluster);
}

// `gpus` GPUs on servers of 8, and a generated queue of twice the GPUs.
struct RoundSetting {
  explicit RoundSetting(int gpus) : cluster(Servers(gpus)), zoo(*DefaultModelZoo()) {
    WorkloadGenerator gen(GeneratorConfig{}, zoo);
    for (int i = 0; i < 2 * gpus; ++i) {
      JobSpec spec = gen.Next();
      JobView v;
      v.id = spec.id;
      v.gpus = spec.gpus;
      v.arrival_s = spec.arrival_s;
      SetModelFields(v, &zoo.model(spec.model), cluster);
      v.last_round_speedup = v.ideal_speedup;
      v.total_iterations = spec.iterations;
      v.remaining_iterations = spec.iterations;
      jobs.push_back(v);
    }
  }
  static std::vector<ServerSpec> Servers(int gpus) {
    std::vector<ServerSpec> servers;
    for (int i = 0; i < gpus / 8; ++i) servers.push_back({"s", Resources{8, 24, 500, 500}});
    return servers;
  }
  const Cluster cluster;
  const ModelZoo zoo;  // the views' profiles point into it
  std::vector<JobView> jobs;
};

// One round as the daemon plans it: the queue ordered and selected afresh.
void Round(benchmark::State& state, const char* mechanism_name) {
  const RoundSetting setting(static_cast<int>(state.range(0)));
  const std::vector<JobView>& jobs = setting.jobs;
  auto policy = *MakePolicy("fifo");
  auto mechanism = *MakeMechanism(mechanism_name);
  RoundInput in;
  in.now_s = 1e6;
  in.cluster = &setting.cluster;
  for (const JobView& j : jobs) in.queue.push_back(&j);
  size_t placed = 0;
  for (auto _ : state) {
    RoundResult r = ScheduleRound(in, *policy, *mechanism);
    placed = r.plan.assignments.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["jobs_placed"] = static_cast<double>(placed);
  state.counters["queue"] = static_cast<double>(jobs.size());
}

// One round as the simulator plans it, on its standing queue (FIFO keeps
// its order between rounds): the round, then the queue told of the jobs
// that ran, as the simulator tells it.
void StandingRound(benchmark::State& state, const char* mechanism_name) {
  const RoundSetting setting(static_cast<int>(state.range(0)));
  auto policy = *MakePolicy("fifo");
  auto mechanism = *MakeMechanism(mechanism_name);
  StandingQueue queue(*policy, *mechanism, /*reference_compatible=*/true);
  // The generator numbers its jobs in order: a job's view is at its id's
  // offset from the first (a map's lookups would time the bench, not the
  // round).
  const JobId first_id = setting.jobs.front().id;
  for (const JobView& j : setting.jobs) {
    if (j.id - first_id != &j - setting.jobs.data()) {
      state.SkipWithError("the generator's ids are not consecutive");
      return;
    }
    queue.Add(&j);
  }
  size_t placed = 0;
  for (auto _ : state) {
    RoundResult r = ScheduleStandingRound(queue, 1e6, setting.cluster, GpuPlacement::kConsolidate);
    for (const Assignment& a : r.plan.assignments) queue.Touch(&setting.jobs[static_cast<size_t>(a.job - first_id)]);
    placed = r.plan.assignments.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["jobs_placed"] = static_cast<double>(placed);
  state.counters["queue"] = static_cast<double>(setting.jobs.size());
}

void BM_TuneRound(benchmark::State& state) { Round(state, "tune"); }
void BM_TuneStandingRound(benchmark::State& state) { StandingRound(state, "tune"); }
void BM_TuneGradedRound(benchmark::State& state) { Round(state, "tune-graded"); }
void BM_OptRound(benchmark::State& state) { Round(state, "opt"); }

BENCHMARK(BM_Window)->Arg(4000)->Arg(8000)->Arg(16000)->Iterations(1)->Unit(benchmark::kMillisecond);
// The figure, and smaller runs to see the load's busy fraction.
BENCHMARK(BM_Generated)
    ->Args({100000, static_cast<int64_t>(kBusyLoad1024)})
    ->Args({20000, 30})
    ->Args({20000, 36})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DefaultModeBetweenRounds)
    ->Args({20000, 0})
    ->Args({20000, 1})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Replay1M)->Arg(1000000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TuneRound)->Arg(16384)->Arg(65536)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TuneStandingRound)->Arg(8192)->Arg(16384)->Arg(32768)->Arg(65536)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TuneGradedRound)->Arg(16384)->Arg(65536)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OptRound)->Arg(16384)->Arg(65536)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace synergy::sim
