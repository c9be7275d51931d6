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
#include "synergy/plan.h"

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

// Two plans place the same jobs, in the same order, at the same speedups,
// on the same servers with the same resources.
inline void ExpectSamePlan(const Plan& got, const Plan& want, const std::string& where) {
  ASSERT_EQ(got.assignments.size(), want.assignments.size()) << where;
  for (size_t i = 0; i < want.assignments.size(); ++i) {
    const Assignment& g = got.assignments[i];
    const Assignment& w = want.assignments[i];
    EXPECT_EQ(g.job, w.job) << where;
    EXPECT_EQ(g.speedup, w.speedup) << where;
    EXPECT_EQ(g.at_ideal, w.at_ideal) << where;
    ASSERT_EQ(g.slices.size(), w.slices.size()) << where;
    for (size_t k = 0; k < w.slices.size(); ++k) {
      EXPECT_EQ(g.slices[k].server, w.slices[k].server) << where;
      EXPECT_EQ(g.slices[k].resources, w.slices[k].resources) << where;
    }
  }
}

}  // namespace synergy::testing
