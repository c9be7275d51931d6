#pragma once
// Shared fixtures for the unit tests: the shipped cluster and zoo, and small
// builders for jobs and clusters.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "synergy/cluster.h"
#include "synergy/default_configs.h"
#include "synergy/job.h"
#include "synergy/job_view_rules.h"
#include "synergy/model_zoo.h"

namespace synergy::testing {

inline Cluster DefaultClusterOrDie() {
  auto c = DefaultCluster();
  EXPECT_TRUE(c.ok()) << c.status();
  return *c;
}

inline ModelZoo ZooOrDie() {
  auto z = DefaultModelZoo();
  EXPECT_TRUE(z.ok()) << z.status();
  return *z;
}

inline Cluster Homogeneous(int servers, int gpus, double cpus, double mem_gb,
                           double storage = 500) {
  std::vector<ServerSpec> specs;
  for (int i = 0; i < servers; ++i) {
    specs.push_back(ServerSpec{"s" + std::to_string(i), Resources{gpus, cpus, mem_gb, storage}});
  }
  return Cluster(std::move(specs));
}

// A job of `model` (zoo name) with its ideal demand for `gpus` GPUs.
inline JobView MakeJob(const ModelZoo& zoo, const Cluster& cluster, JobId id,
                       const std::string& model, int gpus, double arrival_s = 0,
                       double iterations = 1000) {
  JobView j;
  j.id = id;
  j.gpus = gpus;
  j.arrival_s = arrival_s;
  SetModelFields(j, &zoo.model(zoo.Find(model)), cluster);
  j.last_round_speedup = j.ideal_speedup;
  j.total_iterations = iterations;
  j.remaining_iterations = iterations;
  return j;
}

inline std::vector<const JobView*> Pointers(const std::vector<JobView>& jobs) {
  std::vector<const JobView*> out;
  for (const JobView& j : jobs) out.push_back(&j);
  return out;
}

}  // namespace synergy::testing
