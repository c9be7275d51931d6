#include "synergy/measured_model.h"

#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace synergy {
namespace {

std::vector<MeasuredPoint> Measure(const std::vector<std::pair<double, double>>& cpu_throughput) {
  std::vector<MeasuredPoint> points;
  for (auto [cpus, t] : cpu_throughput) {
    for (double mem : {25.0, 100.0}) points.push_back(MeasuredPoint{cpus, mem, t});
  }
  return points;
}

// One server, 2 GPUs, 4 CPUs: the share is 2 CPUs per GPU.
const Cluster kOneServer({ServerSpec{"n1", Resources{2, 4, 100, 0}}});

TEST(ModelFromMeasured, TheIdealIsTheFewestCpusWithinTheToleranceOfTheBest) {
  // Flat but noisy (a language model): its best is at 4 CPUs by chance.
  auto flat = ModelFromMeasured(Measure({{1, 96.3}, {2, 98.4}, {4, 98.5}}), 1, kOneServer);
  ASSERT_TRUE(flat.has_value());
  EXPECT_EQ(flat->profile.ideal_per_gpu().cpus, 1);
  EXPECT_EQ(flat->profile.ideal_per_gpu().mem_gb, 25);
  EXPECT_NEAR(flat->profile.ideal_speedup(), 96.3 / 98.4, 1e-9);  // vs its 2-CPU share
  // A knee at 3 CPUs, 4 a little (< 10%) better.
  auto knee = ModelFromMeasured(Measure({{2, 25}, {3, 45}, {4, 48}}), 1, kOneServer);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->profile.ideal_per_gpu().cpus, 3);
  EXPECT_NEAR(knee->profile.ideal_speedup(), 45.0 / 25, 1e-9);
  // With no tolerance the exact best wins, so the test above can fail.
  EXPECT_EQ(ModelFromMeasured(Measure({{2, 25}, {3, 45}, {4, 48}}), 1, kOneServer, 0.0)->profile.ideal_per_gpu().cpus,
            4);
}

TEST(ModelFromMeasured, PointsArePerGpuAndTheIterationTimeIsAtTheShare) {
  // A 2-GPU job measured at 2, 4 and 8 cores: 1, 2 and 4 per GPU; at its
  // share (2 per GPU) it made 20 iterations/s.
  auto m = ModelFromMeasured(Measure({{2, 10}, {4, 20}, {8, 30}}), 2, kOneServer);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->profile.cpu_points(), (std::vector<double>{1, 2, 4}));
  EXPECT_EQ(m->profile.mem_points_gb(), (std::vector<double>{12.5, 50}));
  EXPECT_DOUBLE_EQ(m->iteration_time_s, 1.0 / 20);
  EXPECT_DOUBLE_EQ(m->profile.ThroughputAt(4, 12.5), 1.5);
}

TEST(ModelFromMeasured, NothingToCompareWithIsNoModel) {
  EXPECT_FALSE(ModelFromMeasured({}, 1, kOneServer).has_value());
  EXPECT_FALSE(ModelFromMeasured(Measure({{1, 10}}), 0, kOneServer).has_value());
  EXPECT_FALSE(ModelFromMeasured(Measure({{1, 10}}), 1, Cluster()).has_value());
  // Nothing measured at or below the share (2 cores): no throughput there.
  EXPECT_FALSE(ModelFromMeasured(Measure({{3, 10}, {4, 12}}), 1, kOneServer).has_value());
}

}  // namespace
}  // namespace synergy

namespace synergy {
namespace {

TEST(MeasuredKnee, FewestCpusThenLeastMemoryWithinTheToleranceOfTheBest) {
  const std::vector<MeasuredPoint> points = {{4, 32, 100}, {2, 16, 60}, {3, 32, 95}, {3, 16, 92}, {8, 64, 101}};
  const std::optional<MeasuredPoint> knee = MeasuredKnee(points);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->cpus, 3);
  EXPECT_EQ(knee->mem_gb, 16);
  EXPECT_FALSE(MeasuredKnee({}).has_value());
  EXPECT_FALSE(MeasuredKnee(std::vector<MeasuredPoint>{{2, 16, 0}}).has_value());
}

}  // namespace
}  // namespace synergy
