// Properties every mechanism must keep, over randomised clusters and queues
// (seeded, so a failure reproduces).
#include <map>
#include <random>

#include "gtest/gtest.h"
#include "synergy/mechanism.h"
#include "synergy/placement_state.h"
#include "synergy/round.h"
#include "test_support.h"

namespace synergy {
namespace {

struct Case {
  Cluster cluster;
  std::vector<JobView> jobs;
};

Case RandomCase(std::mt19937& rng, const ModelZoo& zoo) {
  // Homogeneous servers, as the reference and the paper assume; shapes that
  // give the shipped clusters' dyadic shares and some that do not.
  const int servers = std::uniform_int_distribution<int>(1, 12)(rng);
  const int gpus = std::vector<int>{1, 2, 4, 8}[rng() % 4];
  const double cpus = gpus * std::vector<double>{2, 3, 4, 6}[rng() % 4];
  const double mem = gpus * std::vector<double>{31.25, 62.5, 125}[rng() % 3];
  Case c{testing::Homogeneous(servers, gpus, cpus, mem, gpus * 62.5), {}};
  const int total = c.cluster.total().gpus;
  const int n = std::uniform_int_distribution<int>(1, 3 * total)(rng);
  for (int i = 0; i < n; ++i) {
    const int g = std::min(total, std::vector<int>{1, 1, 1, 2, 4, 8}[rng() % 6]);
    const std::string& model = zoo.models()[rng() % zoo.models().size()].name;
    c.jobs.push_back(testing::MakeJob(zoo, c.cluster, i, model, g, i * 10.0));
    c.jobs.back().attained_service_s = 300.0 * (rng() % 20);
  }
  return c;
}

void CheckPlan(const Plan& plan, const Case& c, const std::string& label) {
  std::map<JobId, const JobView*> by_id;
  for (const JobView& j : c.jobs) by_id[j.id] = &j;
  std::vector<Resources> used(c.cluster.num_servers());
  std::map<JobId, int> seen;
  for (const Assignment& a : plan.assignments) {
    ASSERT_EQ(++seen[a.job], 1) << label << ": job placed twice";
    const JobView& job = *by_id.at(a.job);
    int gpus = 0;
    for (const Slice& s : a.slices) {
      ASSERT_GE(s.server, 0);
      ASSERT_LT(s.server, c.cluster.num_servers());
      used[s.server] += s.resources;
      gpus += s.resources.gpus;
    }
    EXPECT_EQ(gpus, job.gpus) << label << ": job " << a.job << " got the wrong GPU count";
  }
  for (int s = 0; s < c.cluster.num_servers(); ++s) {
    const Resources& cap = c.cluster.servers()[s].capacity;
    EXPECT_LE(used[s].gpus, cap.gpus) << label << " server " << s;
    EXPECT_LE(used[s].cpus, cap.cpus + 1e-9) << label << " server " << s;
    EXPECT_LE(used[s].mem_gb, cap.mem_gb + 1e-9) << label << " server " << s;
    EXPECT_LE(used[s].storage_mbps, cap.storage_mbps + 1e-9) << label << " server " << s;
  }
}

int PlacedGpus(const Plan& plan) {
  int g = 0;
  for (const Assignment& a : plan.assignments) g += a.Total().gpus;
  return g;
}

TEST(PlacementProperties, RandomisedClustersAndQueues) {
  const ModelZoo zoo = testing::ZooOrDie();
  std::mt19937 rng(20221202);
  for (int iteration = 0; iteration < 400; ++iteration) {
    Case c = RandomCase(rng, zoo);
    const std::string policy_name = PolicyNames()[iteration % 4];
    auto policy = *MakePolicy(policy_name);
    RoundInput in;
    in.now_s = 3600;
    in.cluster = &c.cluster;
    in.queue = testing::Pointers(c.jobs);
    in.gpu_placement = iteration % 3 == 0 ? GpuPlacement::kFirstFit : GpuPlacement::kConsolidate;
    std::map<std::string, Plan> plans;
    for (const std::string& m : MechanismNames()) {
      const std::string label = "case " + std::to_string(iteration) + " " + policy_name + "/" + m;
      RoundResult r = ScheduleRound(in, *policy, **MakeMechanism(m));
      CheckPlan(r.plan, c, label);
      plans[m] = r.plan;
    }
    const Plan& tune = plans["tune"];
    const Cluster& cl = c.cluster;
    for (const Assignment& a : tune.assignments) {
      const JobView* job = nullptr;
      for (const JobView& j : c.jobs) {
        if (j.id == a.job) job = &j;
      }
      // Never below proportional: the ideal demand (speedup >= 1) or at
      // least the proportional share in CPU and memory.
      EXPECT_GE(a.speedup, 1.0);
      if (a.at_ideal) {
        EXPECT_EQ(a.Total().cpus, job->ideal_demand.cpus) << "case " << iteration;
        EXPECT_GE(job->ideal_speedup, 1.0);
      } else {
        const Resources fair = cl.ProportionalShare(job->gpus);
        EXPECT_NEAR(a.Total().cpus, fair.cpus, 1e-9) << "case " << iteration;
        EXPECT_NEAR(a.Total().mem_gb, fair.mem_gb, 1e-9) << "case " << iteration;
      }
    }
    // Offered the same candidates in the same order, TUNE places at least
    // the GPUs PROPORTIONAL does. (Whole rounds may differ: SRTF and FTF
    // order by speedup-adjusted remaining time under TUNE.)
    {
      std::vector<const JobView*> order = in.queue;
      PolicyContext ctx;
      ctx.now_s = in.now_s;
      policy->Order(order, ctx);
      PlacementState by_tune(c.cluster, in.gpu_placement);
      PlacementState by_proportional(c.cluster, in.gpu_placement);
      (*MakeMechanism("tune"))->Place(order, by_tune);
      (*MakeMechanism("proportional"))->Place(order, by_proportional);
      EXPECT_GE(PlacedGpus(by_tune.TakePlan()), PlacedGpus(by_proportional.TakePlan()))
          << "case " << iteration << " " << policy_name;
    }
    EXPECT_TRUE(tune.unplaced_after_revert.empty()) << "case " << iteration;
  }
}

}  // namespace
}  // namespace synergy
