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

// Throughput of `job` at what `a` gives it, relative to its proportional
// throughput, read from the profile (not from the mechanism's own speedup).
double MeasuredSpeedup(const JobView& job, const Assignment& a, const Cluster& cluster) {
  const Resources total = a.Total();
  const Resources& share = cluster.share_per_gpu();
  const double at_share = job.profile->ThroughputAt(share.cpus, share.mem_gb);
  return job.profile->ThroughputAt(total.cpus / total.gpus, total.mem_gb / total.gpus) / at_share;
}

// Whether the profile measures the cluster's proportional point.
bool HasShareOnGrid(const JobView& job, const Cluster& cluster) {
  const Resources& share = cluster.share_per_gpu();
  return job.profile->ThroughputAt(share.cpus, share.mem_gb) > 0;
}

double SumOfSpeedups(const Plan& plan) {
  double sum = 0;
  for (const Assignment& a : plan.assignments) sum += a.speedup;
  return sum;
}

// The mechanisms that promise proportional throughput or better.
bool KeepsProportional(const std::string& m) {
  return m == "tune" || m == "tune-graded" || m == "opt";
}

TEST(PlacementProperties, RandomisedClustersAndQueues) {
  const ModelZoo zoo = testing::ZooOrDie();
  std::mt19937 rng(20221202);
  MechanismOptions options;
  options.opt_branch_nodes = 5000;
  for (int iteration = 0; iteration < 400; ++iteration) {
    Case c = RandomCase(rng, zoo);
    const std::string policy_name = PolicyNames()[iteration % 4];
    auto policy = *MakePolicy(policy_name);
    RoundInput in;
    in.now_s = 3600;
    in.cluster = &c.cluster;
    in.queue = testing::Pointers(c.jobs);
    in.gpu_placement = iteration % 3 == 0 ? GpuPlacement::kFirstFit : GpuPlacement::kConsolidate;
    // OPT solves integer programs: every other case keeps the test fast.
    const bool with_opt = iteration % 2 == 0;
    std::map<JobId, const JobView*> by_id;
    for (const JobView& j : c.jobs) by_id[j.id] = &j;
    std::map<std::string, Plan> plans;
    for (const std::string& m : MechanismNames()) {
      if (m == "opt" && !with_opt) continue;
      const std::string label = "case " + std::to_string(iteration) + " " + policy_name + "/" + m;
      RoundResult r = ScheduleRound(in, *policy, **MakeMechanism(m, options));
      CheckPlan(r.plan, c, label);
      plans[m] = r.plan;
      if (!KeepsProportional(m)) continue;
      for (const Assignment& a : r.plan.assignments) {
        const JobView& job = *by_id.at(a.job);
        EXPECT_GE(a.speedup, 1.0) << label;
        // The ideal demand's speedup is the zoo's (relative to the profiled
        // proportional point); any other point's is read off the profile.
        if (a.at_ideal || !HasShareOnGrid(job, c.cluster)) continue;
        EXPECT_GE(MeasuredSpeedup(job, a, c.cluster), 1.0 - 1e-9) << label << " job " << a.job;
        EXPECT_NEAR(MeasuredSpeedup(job, a, c.cluster), a.speedup, 1e-9) << label << " job " << a.job;
      }
      EXPECT_TRUE(r.plan.unplaced_after_revert.empty()) << label;
    }
    const Plan& tune = plans["tune"];
    const Cluster& cl = c.cluster;
    for (const Assignment& a : tune.assignments) {
      const JobView* job = by_id.at(a.job);
      // TUNE gives the ideal demand or exactly the proportional share.
      if (a.at_ideal) {
        EXPECT_EQ(a.Total().cpus, job->ideal_demand.cpus) << "case " << iteration;
        EXPECT_GE(job->ideal_speedup, 1.0);
      } else {
        const Resources fair = cl.ProportionalShare(job->gpus);
        EXPECT_NEAR(a.Total().cpus, fair.cpus, 1e-9) << "case " << iteration;
        EXPECT_NEAR(a.Total().mem_gb, fair.mem_gb, 1e-9) << "case " << iteration;
      }
    }
    // Offered the same candidates in the same order, TUNE and TUNE-graded
    // place at least the GPUs PROPORTIONAL does, and OPT (which selects the
    // same jobs: those whose GPUs fit, in order) has a bound, and when it
    // solves to optimality a plan, no lower than TUNE's sum of speedups.
    // (Whole rounds may differ: SRTF and FTF order by speedup-adjusted
    // remaining time under TUNE.)
    {
      std::vector<const JobView*> order = in.queue;
      PolicyContext ctx;
      ctx.now_s = in.now_s;
      policy->Order(order, ctx);
      auto place = [&](const std::string& m) {
        PlacementState state(c.cluster, in.gpu_placement);
        (*MakeMechanism(m, options))->Place(order, state);
        return state.TakePlan();
      };
      const Plan by_proportional = place("proportional");
      const Plan by_tune = place("tune");
      const std::string label = "case " + std::to_string(iteration) + " " + policy_name;
      EXPECT_GE(PlacedGpus(by_tune), PlacedGpus(by_proportional)) << label;
      EXPECT_GE(PlacedGpus(place("tune-graded")), PlacedGpus(by_proportional)) << label;
      if (with_opt) {
        const Plan by_opt = place("opt");
        EXPECT_EQ(PlacedGpus(by_opt), PlacedGpus(by_tune)) << label;
        EXPECT_TRUE(by_opt.solver.solved) << label;
        EXPECT_GE(by_opt.solver.lp_bound, SumOfSpeedups(by_tune) - 1e-6) << label;
        EXPECT_GE(by_opt.solver.lp_bound, by_opt.solver.pooled_optimum - 1e-6) << label;
        EXPECT_NEAR(by_opt.solver.realised, SumOfSpeedups(by_opt), 1e-9) << label;
        // Never worse than TUNE: when no mapping beats it, TUNE's plan is used.
        EXPECT_GE(SumOfSpeedups(by_opt), SumOfSpeedups(by_tune) - 1e-6) << label;
        if (by_opt.solver.fell_back) {
          EXPECT_NEAR(SumOfSpeedups(by_opt), SumOfSpeedups(by_tune), 1e-9) << label;
        }
      }
    }
  }
}

}  // namespace
}  // namespace synergy
