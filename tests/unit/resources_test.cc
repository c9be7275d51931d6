#include "synergy/resources.h"

#include "gtest/gtest.h"
#include "test_support.h"

namespace synergy {
namespace {

TEST(Resources, FitsInEveryDimension) {
  const Resources avail{4, 12, 250, 250};
  EXPECT_TRUE((Resources{4, 12, 250, 250}).FitsIn(avail));
  EXPECT_FALSE((Resources{5, 1, 1, 1}).FitsIn(avail));
  EXPECT_FALSE((Resources{1, 12.5, 1, 1}).FitsIn(avail));
  EXPECT_FALSE((Resources{1, 1, 250.5, 1}).FitsIn(avail));
  EXPECT_FALSE((Resources{1, 1, 1, 251}).FitsIn(avail));
}

TEST(Resources, Arithmetic) {
  Resources a{2, 6, 125, 125};
  Resources b{1, 3, 62.5, 62.5};
  EXPECT_EQ(a - b, b);
  EXPECT_EQ(b + b, a);
  EXPECT_TRUE((b - a).NonNegative() == false);
}

TEST(Cluster, ProportionalShareOfTheDefaultCluster) {
  Cluster c = testing::DefaultClusterOrDie();
  EXPECT_EQ(c.num_servers(), 16);
  EXPECT_EQ(c.total().gpus, 128);
  EXPECT_EQ(c.share_per_gpu(), (Resources{1, 3, 62.5, 62.5}));
  EXPECT_EQ(c.ProportionalShare(4), (Resources{4, 12, 250, 250}));
  EXPECT_EQ(c.largest_server(), (Resources{8, 24, 500, 500}));
}

// The paper's share: C_i / G_i x g on the server the job lands on, so it
// does not move when another server joins or leaves.
TEST(Cluster, EachServerGivesItsOwnSharePerGpu) {
  const Cluster mixed({ServerSpec{"big", Resources{8, 24, 400, 0}}, ServerSpec{"small", Resources{2, 2, 8, 0}}});
  EXPECT_FALSE(mixed.share_is_uniform());
  EXPECT_EQ(mixed.share_per_gpu_on(0), (Resources{1, 3, 50, 0}));
  EXPECT_EQ(mixed.share_per_gpu_on(1), (Resources{1, 1, 4, 0}));
  EXPECT_EQ(mixed.ShareOn(0, 2), (Resources{2, 6, 100, 0}));
  EXPECT_EQ(mixed.smallest_share_per_gpu(), (Resources{1, 1, 4, 0}));
  // The cluster-wide figure (26 cores over 10 GPUs) is still there, and
  // the same big server alone gives the same share on it.
  EXPECT_EQ(mixed.share_per_gpu().cpus, 2.6);
  const Cluster big_alone({ServerSpec{"big", Resources{8, 24, 400, 0}}});
  EXPECT_EQ(big_alone.share_per_gpu_on(0), mixed.share_per_gpu_on(0));
}

TEST(Cluster, TheClusterWideRuleGivesEveryServerTheAverage) {
  const Cluster mixed({ServerSpec{"big", Resources{8, 24, 400, 0}}, ServerSpec{"small", Resources{2, 2, 8, 0}}},
                      ShareRule::kClusterWide);
  EXPECT_TRUE(mixed.share_is_uniform());
  EXPECT_EQ(mixed.share_per_gpu_on(1), mixed.share_per_gpu());
  EXPECT_EQ(mixed.ShareOn(1, 3), mixed.ProportionalShare(3));
}

TEST(Cluster, IdenticalServersShareTheClusterFigureBitForBit) {
  Cluster c = testing::DefaultClusterOrDie();
  EXPECT_TRUE(c.share_is_uniform());
  for (int s = 0; s < c.num_servers(); ++s) EXPECT_EQ(c.ShareOn(s, 5), c.ProportionalShare(5));
}

}  // namespace
}  // namespace synergy
