// The simulator on clusters of several GPU types (SimConfig::type_choice):
// jobs run at their profile on the type they hold, LAS counts service in
// progress, reports say which type each job ended on, leases are kept as
// synergyd keeps them, and what the simulator cannot do there is refused
// by name.
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gtest/gtest.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/trace.h"
#include "synergy/config_loader.h"
#include "test_support.h"

namespace synergy::sim {
namespace {

class HeterogeneousSimTest : public ::testing::Test {
 protected:
  // One server of 8 GPUs, 24 CPUs and 500 GB of each type (the share is
  // 3 CPUs and 62.5 GB a GPU on each).
  Cluster cluster_ = *ParseCluster(
      "servers:\n"
      "  - {name: v, gpus: 8, cpus: 24, memory_gb: 500, storage_mbps: 500, gpu_type: v100}\n"
      "  - {name: k, gpus: 8, cpus: 24, memory_gb: 500, storage_mbps: 500, gpu_type: k80}\n",
      "c.yaml");
  ModelZoo zoo_ = testing::ZooOrDie();

  absl::StatusOr<SimResult> Replay(const std::string& trace, const std::string& policy,
                                   const std::string& mechanism, TypeChoice choice,
                                   std::function<void(SimConfig&)> more = nullptr) {
    auto jobs = ParseTrace(trace, "t.csv", zoo_, cluster_);
    EXPECT_TRUE(jobs.ok()) << jobs.status();
    policy_ = *MakePolicy(policy);
    mechanism_ = *MakeMechanism(mechanism);
    SimConfig c;
    c.cluster = &cluster_;
    c.zoo = &zoo_;
    c.policy = policy_.get();
    c.mechanism = mechanism_.get();
    c.type_choice = choice;
    if (more) more(c);
    return RunTrace(c, *jobs);
  }
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<Mechanism> mechanism_;
};

TEST_F(HeterogeneousSimTest, AJobRunsAtItsProfileOnTheTypeItHolds) {
  // lstm: 0.011 s an iteration on a V100 at the share; a K80 runs it at
  // 0.265 of that. First fit puts the first eight (long) jobs on the V100
  // server, the cluster's first type, and the next eight on the K80, where
  // they end before any V100 frees.
  std::string trace;
  for (int i = 0; i < 8; ++i) trace += std::to_string(i) + ",lstm,0,1000000,1\n";
  for (int i = 8; i < 16; ++i) trace += std::to_string(i) + ",lstm,0,10000,1\n";
  auto r = Replay(trace, "fifo", "proportional", TypeChoice::kFirstFit);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->jobs.size(), 16u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(r->jobs[i].gpu_type, 0);
    EXPECT_NEAR(r->jobs[i].jct_s(), 1000000 * 0.011, 1e-6);
  }
  for (int i = 8; i < 16; ++i) {
    EXPECT_EQ(r->jobs[i].gpu_type, 1);
    EXPECT_NEAR(r->jobs[i].jct_s(), 10000 * 0.011 / 0.265, 1e-6);
  }
}

TEST_F(HeterogeneousSimTest, ByThroughputTheJobThatLosesMostOnAK80GetsTheV100) {
  // Fifteen lstm jobs, then an alexnet, on 16 GPUs. At the share, alexnet
  // keeps 0.086 x 2.94 of its V100 throughput on a K80 (the K80 caps it),
  // lstm 0.265. First fit gives the V100s to the first eight in the queue;
  // by throughput alexnet chooses first.
  std::string trace;
  for (int i = 0; i < 15; ++i) trace += std::to_string(i) + ",lstm,0,1000000,1\n";
  trace += "15,alexnet,0,500,1\n";
  std::map<JobId, int> first_round;
  auto on_round = [&](SimConfig& c) {
    c.on_round = [&](const RoundInput& in, const RoundResult& out) {
      if (in.now_s != 0) return;
      for (const Assignment& a : out.plan.assignments) first_round[a.job] = cluster_.gpu_type_of(a.slices[0].server);
    };
  };
  auto first = Replay(trace, "fifo", "proportional", TypeChoice::kFirstFit, on_round);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first_round.at(15), 1);
  auto by_gpu = Replay(trace, "fifo", "proportional", TypeChoice::kGpuThroughput, on_round);
  ASSERT_TRUE(by_gpu.ok());
  EXPECT_EQ(first_round.at(15), 0);
  int lstm_on_v100 = 0;
  for (const auto& [id, type] : first_round) lstm_on_v100 += id != 15 && type == 0;
  EXPECT_EQ(lstm_on_v100, 7);
  EXPECT_NEAR(first->jobs[15].jct_s() / by_gpu->jobs[15].jct_s(), 1 / (0.086 * 2.94), 1e-6);
}

TEST_F(HeterogeneousSimTest, LasCountsServiceInProgressSoTheJobsOnTheSlowTypeGoFirstNext) {
  // Sixteen lstm jobs fill both servers. Service counts in seconds at the
  // reference type's (V100) rate: a round on a K80 is worth 0.265 of one on
  // a V100, so the K80's jobs have less and take the V100 next round.
  std::string trace;
  for (int i = 0; i < 16; ++i) trace += std::to_string(i) + ",lstm,0,200000,1\n";
  std::map<JobId, int> first_type, second_type;
  std::map<JobId, double> service;
  auto r = Replay(trace, "las", "proportional", TypeChoice::kFirstFit, [&](SimConfig& c) {
    c.on_round = [&](const RoundInput& in, const RoundResult& out) {
      std::map<JobId, int>& types = in.now_s == 0 ? first_type : second_type;
      if (in.now_s > 300) return;
      for (const Assignment& a : out.plan.assignments) types[a.job] = cluster_.gpu_type_of(a.slices[0].server);
      if (in.now_s == 300) {
        for (const JobView* v : in.queue) service[v->id] = v->attained_service_s;
      }
    };
  });
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(first_type.size(), 16u);
  for (const auto& [id, type] : first_type) {
    EXPECT_NEAR(service[id], type == 0 ? 300 : 300 * 0.265, 1e-9) << id;
    EXPECT_NE(second_type.at(id), type) << id << ": the K80's jobs move to the V100, and back";
  }
}

TEST_F(HeterogeneousSimTest, AClusterOfOneTypeOtherThanTheBaseRunsAtThatType) {
  cluster_ = *ParseCluster("servers:\n  - {gpus: 8, cpus: 24, memory_gb: 500, gpu_type: k80}\n", "c.yaml");
  auto r = Replay("0,lstm,0,10000,1\n", "fifo", "tune", TypeChoice::kFirstFit);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->jobs[0].jct_s(), 10000 * 0.011 / 0.265, 1e-6);
}

TEST_F(HeterogeneousSimTest, TheHeadOfTheQueueIsNeverLeftOutForJobsBehindIt) {
  // A V100 server of 3 GPUs and a K80 server of 2. The queue's head, an
  // lstm, needs 3 GPUs; the two translation jobs behind it lose more on a
  // K80 and choose first by regret: were they both to take V100s, the head
  // would fit nowhere. The runnable set is taken first fit, and a choice
  // must leave the rest of it placeable, so all three run: the head on the
  // V100s, the others on the K80s.
  cluster_ = *ParseCluster(
      "servers:\n  - {gpus: 3, cpus: 9, memory_gb: 187.5, gpu_type: v100}\n"
      "  - {gpus: 2, cpus: 6, memory_gb: 125, gpu_type: k80}\n",
      "c.yaml");
  const std::string trace = "0,lstm,0,100000,3\n1,transformer,0,100000,1\n2,gnmt,0,100000,1\n";
  for (TypeChoice choice : {TypeChoice::kFirstFit, TypeChoice::kGpuThroughput, TypeChoice::kBestAllocation,
                            TypeChoice::kProgram}) {
    std::set<JobId> first_round;
    auto r = Replay(trace, "fifo", "tune", choice, [&](SimConfig& c) {
      c.on_round = [&](const RoundInput& in, const RoundResult& out) {
        if (in.now_s != 0) return;
        for (const Assignment& a : out.plan.assignments) first_round.insert(a.job);
      };
    });
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(first_round.count(0)) << TypeChoiceName(choice);
    EXPECT_EQ(first_round.size(), 3u) << TypeChoiceName(choice);
  }
}

TEST_F(HeterogeneousSimTest, ReportsSayTheTypePerJobAndPerTypeUse) {
  auto r = Replay("0,lstm,0,1000,1\n1,alexnet,0,1000,8\n", "fifo", "tune", TypeChoice::kFirstFit);
  ASSERT_TRUE(r.ok()) << r.status();
  const Summary s = Summarize(*r, cluster_, 300);
  ASSERT_EQ(s.by_gpu_type.size(), 2u);
  EXPECT_EQ(s.by_gpu_type[0].gpu_type, "v100");
  EXPECT_EQ(s.by_gpu_type[0].gpus, 8);
  EXPECT_EQ(s.by_gpu_type[0].jobs + s.by_gpu_type[1].jobs, 2);
  const std::string dir = ::testing::TempDir() + "/hetero-report";
  ASSERT_TRUE(WriteReport(dir, *r, s, zoo_, cluster_, {}).ok());
  std::ifstream jobs(dir + "/jobs.csv");
  std::string header;
  std::getline(jobs, header);
  EXPECT_EQ(header, "job_id,model,gpus,arrival_s,start_s,finish_s,jct_s,restarts,resizes,gpu_type");
  std::string line;
  std::getline(jobs, line);
  EXPECT_EQ(line.substr(line.rfind(',') + 1), "v100");
  std::stringstream summary;
  summary << std::ifstream(dir + "/summary.json").rdbuf();
  EXPECT_NE(summary.str().find("\"by_gpu_type\""), std::string::npos);
  EXPECT_NE(summary.str().find("\"gpu_type\": \"k80\""), std::string::npos);
}

// Kept leases on several types, as synergyd keeps them: the replan around
// the pinned jobs chooses types again for the others, so every round still
// has every job on one type and no server over-committed, and keeping
// leases restarts no more jobs than re-planning from scratch.
TEST_F(HeterogeneousSimTest, KeptLeasesRestartCostsAndResizesWorkAcrossTypes) {
  const std::vector<std::string> models = {"res18", "lstm", "alexnet", "gnmt", "mobilenet", "transformer"};
  const std::vector<int> gpus = {1, 2, 1, 4, 1, 1, 2};
  std::string trace;
  for (int i = 0; i < 30; ++i) {
    trace += std::to_string(i) + "," + models[i % models.size()] + "," + std::to_string(200 * i) + "," +
             std::to_string(20000 + 3000 * (i % 5)) + "," + std::to_string(gpus[i % gpus.size()]) + "\n";
  }
  for (TypeChoice choice : {TypeChoice::kBestAllocation, TypeChoice::kGpuThroughput}) {
    auto plain = Replay(trace, "las", "tune", choice);
    ASSERT_TRUE(plain.ok()) << plain.status();
    std::map<double, std::vector<Resources>> used;  // round -> per server
    bool on_one_type = true;
    auto kept = Replay(trace, "las", "tune", choice, [&](SimConfig& c) {
      c.restart_cost_s = 30;
      c.resize_in_place = true;
      c.on_booked = [&](double t, const Assignment& a) {
        std::vector<Resources>& u = used[t];
        u.resize(cluster_.num_servers());
        for (const Slice& s : a.slices) {
          on_one_type &= cluster_.gpu_type_of(s.server) == cluster_.gpu_type_of(a.slices[0].server);
          u[s.server] += s.resources;
        }
      };
    });
    ASSERT_TRUE(kept.ok()) << kept.status();
    EXPECT_TRUE(on_one_type);
    ASSERT_GT(used.size(), 10u);
    for (const auto& [t, per_server] : used) {
      for (int s = 0; s < cluster_.num_servers(); ++s) {
        EXPECT_TRUE(per_server[s].FitsIn(cluster_.servers()[s].capacity)) << "round at " << t << " server " << s;
      }
    }
    EXPECT_EQ(kept->jobs.size(), 30u);
    EXPECT_GT(plain->restarts, 0);
    EXPECT_LE(kept->restarts, plain->restarts) << TypeChoiceName(choice);
  }
}

TEST_F(HeterogeneousSimTest, WhatIsNotSupportedThereIsRefusedByName) {
  const std::string trace = "0,lstm,0,1000,1\n";
  auto reference =
      Replay(trace, "fifo", "tune", TypeChoice::kFirstFit, [](SimConfig& c) { c.reference_compatible = true; });
  ASSERT_FALSE(reference.ok());
  EXPECT_NE(reference.status().message().find("--reference-compatible"), std::string::npos);
  // A type the zoo has no speed for.
  cluster_ = *ParseCluster("servers:\n  - {gpus: 8, cpus: 24, memory_gb: 500}\n"
                           "  - {gpus: 8, cpus: 24, memory_gb: 500, gpu_type: a100}\n",
                           "c.yaml");
  auto unknown = Replay(trace, "fifo", "tune", TypeChoice::kFirstFit);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("GPU type 'a100': model 'alexnet' has no gpu_speed"), std::string::npos)
      << unknown.status();
}

}  // namespace
}  // namespace synergy::sim
