#include "sim/simulator.h"

#include "gtest/gtest.h"
#include "sim/report.h"
#include "sim/trace.h"
#include "test_support.h"

namespace synergy::sim {
namespace {

class SimulatorTest : public ::testing::Test {
 protected:
  Cluster cluster_ = testing::DefaultClusterOrDie();
  ModelZoo zoo_ = testing::ZooOrDie();

  SimResult Replay(const std::string& trace, const std::string& policy,
                   const std::string& mechanism, bool reference) {
    auto jobs = ParseTrace(trace, "t.csv", zoo_, cluster_);
    EXPECT_TRUE(jobs.ok()) << jobs.status();
    auto p = *MakePolicy(policy);
    auto m = *MakeMechanism(mechanism);
    SimConfig c;
    c.cluster = &cluster_;
    c.zoo = &zoo_;
    c.policy = p.get();
    c.mechanism = m.get();
    c.reference_compatible = reference;
    auto r = RunTrace(c, *jobs);
    EXPECT_TRUE(r.ok()) << r.status();
    return *r;
  }
};

// alexnet: 0.6 s per iteration at proportional share, 500 iterations a round.
TEST_F(SimulatorTest, ReferenceModeFinishesAtLeaseEnds) {
  SimResult r = Replay("0,alexnet,0,700,1\n", "fifo", "proportional", true);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].start_s, 0);
  EXPECT_EQ(r.jobs[0].finish_s, 600);  // two rounds; the second is partly idle
}

TEST_F(SimulatorTest, DefaultModeFinishesAtTheLastIteration) {
  SimResult r = Replay("0,alexnet,0,700,1\n", "fifo", "proportional", false);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 300 + 200 * 0.6);
}

TEST_F(SimulatorTest, FirstReplayRoundIsOnTheGridAfterTheFirstArrival) {
  SimResult r = Replay("0,alexnet,409,500,1\n", "fifo", "proportional", true);
  EXPECT_EQ(r.jobs[0].start_s, 600);
  EXPECT_EQ(r.jobs[0].finish_s, 900);
  EXPECT_EQ(r.jobs[0].jct_s(), 491);
}

TEST_F(SimulatorTest, GreedyRunsAtTheIdealSpeedup) {
  // 0.6 / 2.94 s per iteration: floor(300 / 0.2041) = 1470 per round.
  SimResult r = Replay("0,alexnet,0,1470,1\n1,alexnet,0,1471,1\n", "fifo", "greedy", true);
  EXPECT_EQ(r.jobs[0].finish_s, 300);
  EXPECT_EQ(r.jobs[1].finish_s, 600);
}

TEST_F(SimulatorTest, ReferenceReplayStopsWhenTheQueueEmptiesButDefaultRunsAll) {
  const std::string trace = "0,alexnet,0,10,1\n1,alexnet,100000,10,1\n";
  SimResult ref = Replay(trace, "fifo", "proportional", true);
  EXPECT_EQ(ref.unfinished, 1);
  SimResult fixed = Replay(trace, "fifo", "proportional", false);
  EXPECT_EQ(fixed.unfinished, 0);
  ASSERT_EQ(fixed.jobs.size(), 2u);
  EXPECT_EQ(fixed.jobs[1].start_s, 100200);  // the round grid is kept
}

TEST_F(SimulatorTest, QueueWaitsForGpus) {
  // 16 eight-GPU jobs fill the cluster; the 17th waits one round.
  std::string trace;
  for (int i = 0; i < 17; ++i) trace += std::to_string(i) + ",gnmt,0,10,8\n";
  SimResult r = Replay(trace, "fifo", "proportional", true);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(r.jobs[i].start_s, 0) << i;
  EXPECT_EQ(r.jobs[16].start_s, 300);
  EXPECT_EQ(r.rounds[0].allocated.gpus, 128);
}

TEST_F(SimulatorTest, GeneratedRunIsDeterministicAndEndsWithTheWindow) {
  auto run = [&] {
    GeneratorConfig g;
    g.seed = 3;
    WorkloadGenerator gen(g, zoo_);
    auto p = *MakePolicy("srtf");
    auto m = *MakeMechanism("tune");
    SimConfig c;
    c.cluster = &cluster_;
    c.zoo = &zoo_;
    c.policy = p.get();
    c.mechanism = m.get();
    c.reference_compatible = true;
    auto r = RunGenerated(c, gen, 100, 200, nullptr);
    EXPECT_TRUE(r.ok());
    return *r;
  };
  SimResult a = run(), b = run();
  ASSERT_EQ(a.jobs.size(), 100u);
  EXPECT_EQ(a.unfinished, 0);
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].spec.id, static_cast<JobId>(100 + i));
    EXPECT_EQ(a.jobs[i].finish_s, b.jobs[i].finish_s);
  }
  double last = 0;
  for (const JobRecord& j : a.jobs) last = std::max(last, j.finish_s);
  EXPECT_EQ(a.end_s, last);
}

TEST_F(SimulatorTest, SummaryPercentilesInterpolate) {
  EXPECT_EQ(Percentile({1, 2, 3, 4}, 50), 2.5);
  EXPECT_EQ(Percentile({5}, 99), 5);
  EXPECT_NEAR(Percentile({0, 10}, 99), 9.9, 1e-12);
}

}  // namespace
}  // namespace synergy::sim
