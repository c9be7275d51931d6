// Whole simulations: a replay of the reference's 1546-job trace and the
// headline synthetic experiment (FIFO, load 9, jobs 4000-5000), reference-
// compatible, as the reference simulator would run them.
#include <benchmark/benchmark.h>

#include "sim/trace.h"
#include "sim/simulator.h"
#include "synergy/default_configs.h"

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

void BM_ReplayT1(benchmark::State& state, const char* policy_name, const char* mechanism_name) {
  Cluster cluster = *DefaultCluster();
  ModelZoo zoo = *DefaultModelZoo();
  auto trace = LoadTrace(std::string(SYNERGY_SOURCE_DIR) + "/tests/fidelity/data/traces/t1.csv",
                         zoo, cluster);
  if (!trace.ok()) {
    state.SkipWithError("cannot load t1.csv");
    return;
  }
  auto policy = *MakePolicy(policy_name);
  auto mechanism = *MakeMechanism(mechanism_name);
  for (auto _ : state) {
    auto r = RunTrace(Config(cluster, zoo, *policy, *mechanism), *trace);
    benchmark::DoNotOptimize(r);
  }
}

void BM_Headline(benchmark::State& state, const char* mechanism_name) {
  Cluster cluster = *DefaultCluster();
  ModelZoo zoo = *DefaultModelZoo();
  auto policy = *MakePolicy("fifo");
  auto mechanism = *MakeMechanism(mechanism_name);
  GeneratorConfig g;
  g.split_percent = {20, 70, 10};
  for (auto _ : state) {
    WorkloadGenerator gen(g, zoo);
    auto r = RunGenerated(Config(cluster, zoo, *policy, *mechanism), gen, 4000, 5000, nullptr);
    benchmark::DoNotOptimize(r);
  }
}

BENCHMARK_CAPTURE(BM_ReplayT1, fifo_tune, "fifo", "tune")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayT1, ftf_tune, "ftf", "tune")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Headline, tune, "tune")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Headline, proportional, "proportional")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace synergy::sim
