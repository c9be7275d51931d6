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

}  // namespace
}  // namespace synergy
