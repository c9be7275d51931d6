// Launches between rounds (synergy/between_rounds.h): the core's trigger
// and launch, and the simulator's default mode with them: a job starts
// when the job before it finishes, to the simulated second, on what the
// running leases leave free and never below its proportional share; off,
// and in reference-compatible mode, only rounds launch.
#include "synergy/between_rounds.h"

#include <map>

#include "gtest/gtest.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "synergy/config_loader.h"
#include "sim/trace.h"
#include "sim/workload.h"
#include "test_support.h"

namespace synergy {
namespace {

TEST(LaunchTriggerTest, CoalescesTheEventsOfOneWindowIntoOneTry) {
  LaunchTrigger trigger(1000);
  EXPECT_FALSE(trigger.due_at().has_value());
  EXPECT_FALSE(trigger.Due(0));
  trigger.Note(500);
  trigger.Note(900);  // within the first one's window: the same try
  EXPECT_EQ(trigger.due_at(), 1500);
  EXPECT_FALSE(trigger.Due(1499));
  EXPECT_TRUE(trigger.Due(1500));
  trigger.Tried();
  EXPECT_FALSE(trigger.Due(5000)) << "no event since the try";
  trigger.Note(5000);
  EXPECT_EQ(trigger.due_at(), 6000);
}

TEST(LaunchTriggerTest, WithoutADebounceATryIsDueAtTheEvent) {
  LaunchTrigger trigger(0);
  trigger.Note(42.5);
  EXPECT_TRUE(trigger.Due(42.5));
}

TEST(CanLaunchAnyTest, NeedsAWaitingJobThatFitsTheFreeGpus) {
  EXPECT_FALSE(CanLaunchAny(4, 0)) << "none waits";
  EXPECT_FALSE(CanLaunchAny(0, 1));
  EXPECT_FALSE(CanLaunchAny(3, 4));
  EXPECT_TRUE(CanLaunchAny(4, 4));
}

TEST(LaunchBetweenRoundsTest, PinsEveryRunningJobAndNeverReplacesOne) {
  std::set<JobId> asked;
  const Plan plan = LaunchBetweenRounds({3, 1}, 8, [&](const std::set<JobId>& pinned) {
    asked = pinned;
    Plan p;
    p.assignments.push_back(Assignment{.job = 7});
    p.assignments.push_back(Assignment{.job = 3});  // a callback that ignored its pin
    return p;
  });
  EXPECT_EQ(asked, (std::set<JobId>{1, 3}));
  ASSERT_EQ(plan.assignments.size(), 1u);
  EXPECT_EQ(plan.assignments[0].job, 7);
}

// Two servers of 4 GPUs: a 4-GPU job split 2 + 2 waits for the round; a
// 4-GPU job on one server and an 8-GPU job on two are launched.
TEST(LaunchBetweenRoundsTest, NeverSplitsAJobOverMoreServersThanItNeeds) {
  auto on = [](JobId job, std::vector<std::pair<int, int>> server_gpus) {
    Assignment a;
    a.job = job;
    for (auto [server, gpus] : server_gpus) a.slices.push_back(Slice{server, Resources{gpus, 1, 1, 0}});
    return a;
  };
  const Plan plan = LaunchBetweenRounds({}, 4, [&](const std::set<JobId>&) {
    Plan p;
    p.assignments = {on(1, {{0, 2}, {1, 2}}), on(2, {{0, 4}}), on(3, {{0, 4}, {1, 4}})};
    return p;
  });
  ASSERT_EQ(plan.assignments.size(), 2u);
  EXPECT_EQ(plan.assignments[0].job, 2);
  EXPECT_EQ(plan.assignments[1].job, 3);
  EXPECT_EQ(ServersNeeded(9, 8), 2);
  EXPECT_EQ(ServersNeeded(1, 0), 1);
}

class SimulatorBetweenRoundsTest : public ::testing::Test {
 protected:
  ModelZoo zoo_ = testing::ZooOrDie();

  sim::SimResult Replay(const Cluster& cluster, const std::string& trace, const std::string& policy,
                        const std::string& mechanism, bool launch, bool reference = false,
                        std::function<void(double, const Assignment&)> on_booked = nullptr) {
    auto jobs = sim::ParseTrace(trace, "t.csv", zoo_, cluster);
    EXPECT_TRUE(jobs.ok()) << jobs.status();
    return Run(cluster, *jobs, policy, mechanism, launch, reference, std::move(on_booked));
  }

  // `jobs` jobs of the reference's generator, multi-GPU, at `load` an hour.
  std::vector<sim::JobSpec> Generated(double load, int jobs) {
    sim::GeneratorConfig config;
    config.load_jobs_per_hour = load;
    config.multi_gpu = true;
    sim::WorkloadGenerator gen(config, zoo_);
    std::vector<sim::JobSpec> trace;
    for (int i = 0; i < jobs; ++i) trace.push_back(gen.Next());
    return trace;
  }

  sim::SimResult Run(const Cluster& cluster, const std::vector<sim::JobSpec>& jobs, const std::string& policy,
                     const std::string& mechanism, bool launch, bool reference = false,
                     std::function<void(double, const Assignment&)> on_booked = nullptr) {
    auto p = *MakePolicy(policy);
    auto m = *MakeMechanism(mechanism);
    sim::SimConfig c;
    c.cluster = &cluster;
    c.zoo = &zoo_;
    c.policy = p.get();
    c.mechanism = m.get();
    c.reference_compatible = reference;
    c.launch_between_rounds = launch;
    c.on_booked = std::move(on_booked);
    auto r = sim::RunTrace(c, jobs);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *std::move(r) : sim::SimResult{};
  }
};

// Two GPUs, three one-GPU jobs (alexnet: 0.6 s an iteration at the share).
// Job 0 ends 60 s into the first round; job 2 takes its GPU then, not at
// the next round, 240 s later.
TEST_F(SimulatorBetweenRoundsTest, AWaitingJobStartsWhenTheJobBeforeItEnds) {
  const Cluster two = testing::Homogeneous(1, 2, 6, 125);
  const std::string trace = "0,alexnet,0,100,1\n1,alexnet,0,2000,1\n2,alexnet,0,500,1\n";
  for (const char* mechanism : {"proportional", "tune"}) {
    const sim::SimResult on = Replay(two, trace, "fifo", mechanism, true);
    ASSERT_EQ(on.jobs.size(), 3u);
    ASSERT_GT(on.jobs[0].finish_s, 0);
    EXPECT_LT(on.jobs[0].finish_s, 300) << mechanism;
    EXPECT_EQ(on.jobs[2].start_s, on.jobs[0].finish_s) << mechanism;
    EXPECT_EQ(on.launches_between_rounds, 1) << mechanism;
    EXPECT_EQ(on.idle_gpu_s_while_waiting, 0) << mechanism;

    const sim::SimResult off = Replay(two, trace, "fifo", mechanism, false);
    EXPECT_EQ(off.jobs[2].start_s, 300) << mechanism << ": only rounds launch";
    EXPECT_EQ(off.launches_between_rounds, 0);
    EXPECT_DOUBLE_EQ(off.idle_gpu_s_while_waiting, 300 - off.jobs[0].finish_s) << mechanism;
    EXPECT_LT(on.jobs[2].finish_s, off.jobs[2].finish_s) << mechanism;
  }
}

// On an idle cluster a job that arrives mid-round starts at its arrival.
TEST_F(SimulatorBetweenRoundsTest, AnArrivalOnAnIdleClusterStartsAtOnce) {
  const Cluster two = testing::Homogeneous(1, 2, 6, 125);
  const sim::SimResult on = Replay(two, "0,alexnet,409,100,1\n1,alexnet,4000,100,1\n", "fifo", "tune", true);
  ASSERT_EQ(on.jobs.size(), 2u);
  EXPECT_EQ(on.jobs[0].start_s, 409);
  EXPECT_EQ(on.jobs[1].start_s, 4000);
  const sim::SimResult off = Replay(two, "0,alexnet,409,100,1\n1,alexnet,4000,100,1\n", "fifo", "tune", false);
  EXPECT_EQ(off.jobs[0].start_s, 600);
  EXPECT_EQ(off.jobs[1].start_s, 4200);
}

// Reference-compatible runs never launch between rounds, asked or not:
// the reference's JCTs stay exact.
TEST_F(SimulatorBetweenRoundsTest, ReferenceModeLaunchesOnlyInRounds) {
  const Cluster cluster = testing::DefaultClusterOrDie();
  const std::vector<sim::JobSpec> trace = Generated(9, 200);
  const sim::SimResult asked = Run(cluster, trace, "las", "tune", true, /*reference=*/true);
  const sim::SimResult plain = Run(cluster, trace, "las", "tune", false, /*reference=*/true);
  ASSERT_EQ(asked.jobs.size(), plain.jobs.size());
  for (size_t i = 0; i < plain.jobs.size(); ++i) {
    EXPECT_EQ(asked.jobs[i].start_s, plain.jobs[i].start_s) << i;
    EXPECT_EQ(asked.jobs[i].finish_s, plain.jobs[i].finish_s) << i;
  }
  EXPECT_EQ(asked.launches_between_rounds, 0);
}

// On a busy cluster of mixed GPU counts, every launch between rounds fits
// beside what the unfinished jobs hold at that instant (each server's
// GPUs, CPUs and memory), and TUNE never launches a job below its
// proportional share's speed.
TEST_F(SimulatorBetweenRoundsTest, LaunchesFitBesideTheRunningJobsAndKeepTheShare) {
  const Cluster cluster = testing::DefaultClusterOrDie();
  const std::vector<sim::JobSpec> trace = Generated(10, 400);
  for (const char* policy : {"fifo", "las"}) {
    std::vector<std::pair<double, Assignment>> booked;
    const sim::SimResult r = Run(cluster, trace, policy, "tune", true, false,
                                 [&](double t, const Assignment& a) { booked.emplace_back(t, a); });
    ASSERT_EQ(r.unfinished, 0) << policy;
    std::map<JobId, double> finish;
    for (const sim::JobRecord& j : r.jobs) finish[j.spec.id] = j.finish_s;
    int launches = 0;
    for (size_t i = 0; i < booked.size(); ++i) {
      const double at = booked[i].first;
      const double round_start = std::floor(at / 300) * 300;
      if (at == round_start) continue;
      ++launches;
      EXPECT_GE(booked[i].second.speedup, 1 - 1e-9) << policy << " job " << booked[i].second.job;
      // What every lease of this round booked up to now holds at `at`.
      std::vector<Resources> used(cluster.num_servers());
      for (size_t k = 0; k <= i; ++k) {
        const auto& [t, a] = booked[k];
        if (t < round_start || finish[a.job] <= at) continue;
        for (const Slice& s : a.slices) used[s.server] += s.resources;
      }
      for (int s = 0; s < cluster.num_servers(); ++s) {
        EXPECT_TRUE(used[s].FitsIn(cluster.servers()[s].capacity))
            << policy << " at " << at << " server " << s << " over-committed";
      }
    }
    EXPECT_EQ(launches, r.launches_between_rounds) << policy;
    EXPECT_GT(launches, 10) << policy;
  }
}

// On a cluster of two GPU types, the per-type utilisation counts what
// launches between rounds held and what finished jobs gave back, as the
// whole cluster's does: the types' GPU-seconds add up to the cluster's.
TEST_F(SimulatorBetweenRoundsTest, PerTypeUtilisationCountsLaunchesBetweenRounds) {
  const Cluster cluster = *ParseCluster(
      "servers:\n"
      "  - {name: v, count: 2, gpus: 8, cpus: 24, memory_gb: 500, storage_mbps: 500, gpu_type: v100}\n"
      "  - {name: k, count: 2, gpus: 8, cpus: 24, memory_gb: 500, storage_mbps: 500, gpu_type: k80}\n",
      "c.yaml");
  const std::vector<sim::JobSpec> trace = Generated(3, 150);
  const sim::SimResult r = Run(cluster, trace, "fifo", "tune", true);
  ASSERT_GT(r.launches_between_rounds, 0);
  const sim::Summary s = sim::Summarize(r, cluster, 300);
  ASSERT_EQ(s.by_gpu_type.size(), 2u);
  double by_type = 0;
  for (const sim::Summary::ByGpuType& t : s.by_gpu_type) by_type += t.mean_gpu_util * t.gpus;
  EXPECT_NEAR(by_type, s.mean_gpu_util * cluster.total().gpus, 1e-9 * cluster.total().gpus);
}

TEST_F(SimulatorBetweenRoundsTest, TheSameInputsGiveTheSameRun) {
  const Cluster cluster = testing::DefaultClusterOrDie();
  const std::vector<sim::JobSpec> trace = Generated(9, 200);
  const sim::SimResult a = Run(cluster, trace, "ftf", "tune", true);
  const sim::SimResult b = Run(cluster, trace, "ftf", "tune", true);
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].start_s, b.jobs[i].start_s);
    EXPECT_EQ(a.jobs[i].finish_s, b.jobs[i].finish_s);
  }
  EXPECT_EQ(a.busy_gpu_s, b.busy_gpu_s);
  EXPECT_GT(a.launches_between_rounds, 0);
}

}  // namespace
}  // namespace synergy
