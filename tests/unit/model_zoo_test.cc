#include "synergy/model_zoo.h"

#include <cmath>

#include "gtest/gtest.h"
#include "test_support.h"

namespace synergy {
namespace {

class ModelZooTest : public ::testing::Test {
 protected:
  Cluster cluster_ = testing::DefaultClusterOrDie();
  ModelZoo zoo_ = testing::ZooOrDie();
  const ModelSpec& Model(const std::string& name) { return zoo_.model(zoo_.Find(name)); }
};

TEST_F(ModelZooTest, ThroughputReadsTheGridFloor) {
  const SensitivityProfile& p = Model("alexnet").profile;
  EXPECT_EQ(p.ThroughputAt(3, 62.5), 1.0);   // the proportional point
  EXPECT_EQ(p.ThroughputAt(12, 125), 2.94);  // the ideal point
  EXPECT_EQ(p.ThroughputAt(13, 130), 2.94);  // between points: the one below
  EXPECT_EQ(p.ThroughputAt(0.5, 62.5), 0.0);  // below the grid
}

TEST_F(ModelZooTest, SpeedupAtReachesTheIdealAndScalesBelowTheGrid) {
  const SensitivityProfile& alexnet = Model("alexnet").profile;
  EXPECT_EQ(alexnet.SpeedupAt(3, 62.5), 1.0);
  EXPECT_EQ(alexnet.SpeedupAt(5, 105), 1.53);  // between points: the one below
  EXPECT_DOUBLE_EQ(alexnet.SpeedupAt(0.5, 62.5), 0.3 * 0.5);  // half the smallest CPU point (1 CPU: 0.3)
  EXPECT_EQ(alexnet.SpeedupAt(1, 10), alexnet.ThroughputAt(1, 20.83));  // the smallest memory point's
  // gnmt's ideal (1 CPU, 20 GB) is below the grid's smallest memory
  // (20.83 GB), where ThroughputAt reads nothing.
  const SensitivityProfile& gnmt = Model("gnmt").profile;
  EXPECT_EQ(gnmt.ThroughputAt(1, 20), 0.0);
  EXPECT_EQ(gnmt.SpeedupAt(1, 20), 1.0);
  EXPECT_EQ(gnmt.SpeedupAt(0, 20), 0.0);
  EXPECT_EQ(alexnet.SpeedupAt(std::nan(""), 62.5), 0.0);
}

// A replan's remainders keep their servers' share (3 CPUs, 62.5 GB a GPU):
// a 4-GPU job whose largest remainder has 2 CPUs cannot have its share
// there. Its ideal is its share, at speedup 1, not a point below the share
// read off the line (a speedup below 1, or below 0).
TEST_F(ModelZooTest, AnIdealCappedBelowTheShareIsTheShare) {
  const Resources share{1, 3, 62.5, 0};
  const Cluster left({ServerSpec{"n1", Resources{4, 2, 250, 0}, share}});
  const JobDemand d = IdealDemandFor(Model("res50"), 4, left);  // ideal 4 CPUs a GPU
  EXPECT_EQ(d.ideal.cpus, 12);
  EXPECT_GE(d.speedup, 1.0);
}

TEST_F(ModelZooTest, BestPointWithinRespectsLimitAndFloor) {
  const SensitivityProfile& p = Model("alexnet").profile;
  auto best = p.BestPointWithin(Resources{1, 6, 62.5, 0}, 1.0);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->cpus, 6);
  EXPECT_EQ(best->mem_gb, 62.5);
  EXPECT_FALSE(p.BestPointWithin(Resources{1, 2, 62.5, 0}, 1.0).has_value());
}

TEST_F(ModelZooTest, IdealDemandScalesWithGpus) {
  JobDemand d = IdealDemandFor(Model("alexnet"), 2, cluster_);
  EXPECT_EQ(d.ideal, (Resources{2, 24, 250, 125}));
  EXPECT_EQ(d.speedup, 2.94);
}

TEST_F(ModelZooTest, IdealDemandCappedAtAServerScalesSpeedup) {
  // 4 x 12 cores = 48 > 24: capped, speedup on the line from (12 cores, 1)
  // to (48 cores, 2.94), read at 24 cores.
  JobDemand d = IdealDemandFor(Model("alexnet"), 4, cluster_);
  EXPECT_EQ(d.ideal.cpus, 24);
  EXPECT_EQ(d.ideal.mem_gb, 500);
  EXPECT_NEAR(d.speedup, 1 + 1.94 * 12 / 36, 1e-12);
}

TEST_F(ModelZooTest, JobsLargerThanAServerGetProportional) {
  JobDemand d = IdealDemandFor(Model("alexnet"), 16, cluster_);
  EXPECT_EQ(d.ideal, cluster_.ProportionalShare(16));
  EXPECT_EQ(d.speedup, 1.0);
}

TEST_F(ModelZooTest, ModelsOfTaskInZooOrder) {
  std::vector<int> speech = zoo_.ModelsOfTask(Task::kSpeech);
  ASSERT_EQ(speech.size(), 2u);
  EXPECT_EQ(zoo_.model(speech[0]).name, "m5");
  EXPECT_EQ(zoo_.model(speech[1]).name, "deepspeech");
  EXPECT_EQ(zoo_.Find("nope"), -1);
}

}  // namespace
}  // namespace synergy
