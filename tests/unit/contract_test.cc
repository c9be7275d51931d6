// Contract suites that every registered Policy and Mechanism must pass
// (issue 40): a new one registered in PolicyNames() or MechanismNames()
// gets them without a line here.
//  - a policy is its Key (synergy/policy.h): Key reads only the view and
//    the context (a copy of the view, asked twice, keys the same), and
//    Order is a stable sort by it;
//  - a mechanism's plan never over-commits a server in any dimension,
//    gives each placed job exactly its GPUs, never leaves a job below its
//    proportional-share throughput (speedup >= 1: TUNE's promise, and
//    every other mechanism gives the share or the ideal), and is the same
//    for the same input, byte for byte.
// The queues are drawn from the shipped zoo with a fixed seed: the same
// jobs on every machine.
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "synergy/mechanism.h"
#include "synergy/policy.h"
#include "synergy/round.h"
#include "test_support.h"

namespace synergy {
namespace {

// `n` jobs of the zoo's models, 1 to 8 GPUs, arrivals, service and
// progress spread so that every policy's key varies, and one twin (equal
// in all but id) of every fifth job so that keys tie.
std::vector<JobView> DrawQueue(const ModelZoo& zoo, const Cluster& cluster, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  const int gpu_choices[] = {1, 1, 1, 2, 2, 4, 8};
  std::vector<JobView> jobs;
  for (int i = 0; i < n; ++i) {
    const ModelSpec& model = zoo.model(static_cast<int>(rng() % zoo.models().size()));
    JobView j = testing::MakeJob(zoo, cluster, static_cast<JobId>(jobs.size() + 1), model.name,
                                 gpu_choices[rng() % std::size(gpu_choices)], static_cast<double>(rng() % 5000),
                                 1000 + static_cast<double>(rng() % 9000));
    j.remaining_iterations = j.total_iterations * static_cast<double>(rng() % 100) / 100.0;
    j.attained_service_s = static_cast<double>(rng() % 7200);
    j.last_round_speedup = 1.0 + static_cast<double>(rng() % 100) / 100.0;
    j.last_execution_end_s = (rng() % 2) ? static_cast<double>(rng() % 5000) : -1;
    jobs.push_back(j);
    if (i % 5 == 0) {
      JobView twin = j;
      twin.id = static_cast<JobId>(jobs.size() + 1);
      jobs.push_back(twin);
    }
  }
  return jobs;
}

class PolicyContract : public ::testing::TestWithParam<std::string> {
 protected:
  ModelZoo zoo_ = testing::ZooOrDie();
  Cluster cluster_ = testing::Homogeneous(4, 8, 24, 500);
};

TEST_P(PolicyContract, KeyReadsOnlyTheViewAndTheContext) {
  auto policy = MakePolicy(GetParam());
  ASSERT_TRUE(policy.ok()) << policy.status();
  for (bool uses_speedup : {false, true}) {
    PolicyContext context;
    context.now_s = 6000;
    context.mechanism_uses_speedup = uses_speedup;
    for (const JobView& job : DrawQueue(zoo_, cluster_, 30, 7)) {
      const JobView copy = job;
      EXPECT_EQ((*policy)->Key(job, context), (*policy)->Key(copy, context)) << job.id;
      EXPECT_EQ((*policy)->Key(job, context), (*policy)->Key(job, context)) << job.id;
    }
  }
}

TEST_P(PolicyContract, OrderIsAStableSortByKey) {
  auto policy = MakePolicy(GetParam());
  ASSERT_TRUE(policy.ok()) << policy.status();
  PolicyContext context;
  context.now_s = 6000;
  for (uint32_t seed : {1u, 2u, 3u}) {
    const std::vector<JobView> jobs = DrawQueue(zoo_, cluster_, 40, seed);
    std::vector<const JobView*> queue = testing::Pointers(jobs);
    std::shuffle(queue.begin(), queue.end(), std::mt19937(seed));
    std::map<const JobView*, size_t> came_in;
    for (size_t i = 0; i < queue.size(); ++i) came_in[queue[i]] = i;
    std::vector<const JobView*> ordered = queue;
    (*policy)->Order(ordered, context);
    ASSERT_EQ(ordered.size(), queue.size());
    for (size_t i = 1; i < ordered.size(); ++i) {
      const OrderKey before = (*policy)->Key(*ordered[i - 1], context);
      const OrderKey here = (*policy)->Key(*ordered[i], context);
      EXPECT_FALSE(here < before) << "seed " << seed << ": job " << ordered[i]->id << " after " << ordered[i - 1]->id;
      if (here == before) {
        EXPECT_LT(came_in[ordered[i - 1]], came_in[ordered[i]])
            << "seed " << seed << ": equal keys keep the order they came in";
      }
    }
    std::vector<const JobView*> again = queue;
    (*policy)->Order(again, context);
    EXPECT_EQ(again, ordered) << "the same queue orders the same";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPolicy, PolicyContract, ::testing::ValuesIn(PolicyNames()),
                         [](const auto& info) { return info.param; });

class MechanismContract : public ::testing::TestWithParam<std::string> {
 protected:
  // A round of `queue` under FIFO with the mechanism: the plan.
  Plan Round(const std::vector<JobView>& jobs) {
    auto mechanism = MakeMechanism(GetParam());
    EXPECT_TRUE(mechanism.ok()) << mechanism.status();
    RoundInput in;
    in.now_s = 6000;
    in.cluster = &cluster_;
    in.queue = testing::Pointers(jobs);
    return ScheduleRound(in, **MakePolicy("fifo"), **mechanism).plan;
  }
  ModelZoo zoo_ = testing::ZooOrDie();
  Cluster cluster_ = testing::Homogeneous(4, 8, 24, 500);
};

TEST_P(MechanismContract, NoServerIsOverCommittedAndEachJobGetsItsGpus) {
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    const std::vector<JobView> jobs = DrawQueue(zoo_, cluster_, 24, seed);
    std::map<JobId, int> gpus_of;
    for (const JobView& j : jobs) gpus_of[j.id] = j.gpus;
    const Plan plan = Round(jobs);
    EXPECT_FALSE(plan.assignments.empty()) << "seed " << seed;
    std::vector<Resources> used(cluster_.num_servers());
    for (const Assignment& a : plan.assignments) {
      int gpus = 0;
      for (const Slice& s : a.slices) {
        ASSERT_GE(s.server, 0);
        ASSERT_LT(s.server, cluster_.num_servers());
        used[s.server].gpus += s.resources.gpus;
        used[s.server].cpus += s.resources.cpus;
        used[s.server].mem_gb += s.resources.mem_gb;
        gpus += s.resources.gpus;
      }
      EXPECT_EQ(gpus, gpus_of.at(a.job)) << "seed " << seed << ", job " << a.job;
    }
    for (int i = 0; i < cluster_.num_servers(); ++i) {
      const Resources& cap = cluster_.servers()[i].capacity;
      EXPECT_LE(used[i].gpus, cap.gpus) << "seed " << seed << ", server " << i;
      EXPECT_LE(used[i].cpus, cap.cpus + 1e-9) << "seed " << seed << ", server " << i;
      EXPECT_LE(used[i].mem_gb, cap.mem_gb + 1e-9) << "seed " << seed << ", server " << i;
    }
  }
}

TEST_P(MechanismContract, NoJobRunsBelowItsProportionalShare) {
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    for (const Assignment& a : Round(DrawQueue(zoo_, cluster_, 24, seed)).assignments) {
      EXPECT_GE(a.speedup, 1.0 - 1e-9) << "seed " << seed << ", job " << a.job;
    }
  }
}

TEST_P(MechanismContract, TheSameInputGivesTheSamePlan) {
  const std::vector<JobView> jobs = DrawQueue(zoo_, cluster_, 24, 9);
  testing::ExpectSamePlan(Round(jobs), Round(jobs), GetParam());
}

INSTANTIATE_TEST_SUITE_P(EveryMechanism, MechanismContract, ::testing::ValuesIn(MechanismNames()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = (c == '-') ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace synergy
