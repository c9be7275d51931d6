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

// What is left of two 4-GPU servers (12 CPUs, 250 GB) once kept leases
// are taken off: 2 GPUs and 2 CPUs on one, 3 GPUs and 9 CPUs on the other.
// Their share per GPU stays the whole servers' 3 CPUs and 62.5 GB: a job
// planned at its share there gets what the whole server would give it, or
// does not fit, never 1 CPU a GPU.
TEST(Cluster, ARemainderOfAServerKeepsItsShare) {
  const Resources whole_share{1, 3, 62.5, 0};
  const Cluster left({ServerSpec{"n1", Resources{2, 2, 100, 0}, whole_share},
                      ServerSpec{"n2", Resources{3, 9, 200, 0}, whole_share}});
  EXPECT_TRUE(left.share_is_uniform());
  EXPECT_EQ(left.share_per_gpu(), whole_share);
  EXPECT_EQ(left.ShareOn(0, 2), (Resources{2, 6, 125, 0}));  // more than n1 has left: it does not fit there
  EXPECT_EQ(left.ShareOn(1, 3), (Resources{3, 9, 187.5, 0}));
  const Cluster as_before({ServerSpec{"n1", Resources{2, 2, 100, 0}}, ServerSpec{"n2", Resources{3, 9, 200, 0}}});
  EXPECT_EQ(as_before.share_per_gpu_on(0).cpus, 1);  // what a remainder's own figures would say
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
