#include "synergy/agent_profiler.h"

#include <cmath>

#include "gtest/gtest.h"

namespace synergy::agent {
namespace {

int MaxPoints(int cpus) { return 1 + static_cast<int>(std::ceil(std::log2(cpus))); }

// Throughput grows linearly up to `knee` CPUs, then not at all (a data
// pipeline that saturates the GPU at `knee` workers).
TEST(Profiler, FindsTheKneeOfASaturatingPipelineWithinTheStatedPoints) {
  for (int max_cpus : {8, 24, 48}) {
    for (int knee = 1; knee <= max_cpus; ++knee) {
      int calls = 0;
      CpuProfile p = ProfileCpus(max_cpus, [&](int c, int) {
        ++calls;
        return 10.0 * std::min(c, knee);
      });
      // The fewest CPUs within 10% of the best: never above the true knee,
      // within the threshold of it, and one CPU fewer is not.
      const std::string label = std::to_string(max_cpus) + " cpus, knee " + std::to_string(knee);
      EXPECT_LE(p.knee, knee) << label;
      EXPECT_GT(10.0 * p.knee * 1.1, 10.0 * knee) << label;
      if (p.knee > 1) EXPECT_LE(10.0 * (p.knee - 1) * 1.1, 10.0 * knee) << label;
      EXPECT_LE(calls, MaxPoints(max_cpus)) << max_cpus << " cpus, knee " << knee;
      EXPECT_EQ(calls, static_cast<int>(p.measured.size()));
    }
  }
}

TEST(Profiler, InsensitiveJobsNeedOneCpu) {
  CpuProfile p = ProfileCpus(24, [](int, int) { return 5.0; });
  EXPECT_EQ(p.knee, 1);
  EXPECT_LE(static_cast<int>(p.measured.size()), MaxPoints(24));
  EXPECT_NEAR(p.seconds, p.measured.size() * 50 / 5.0, 1e-9);
}

TEST(Profiler, MemoryModelFollowsTheCacheHitRate) {
  MemoryModel m;
  m.dataset_gb = 100;
  m.mb_per_iteration = 50;
  m.storage_mbps = 500;
  // No cache: every item from storage, 10 iterations/s; half cached: 20;
  // all cached: unbounded by I/O.
  EXPECT_NEAR(IoThroughputAt(m, 0), 10, 1e-9);
  EXPECT_NEAR(IoThroughputAt(m, 50), 20, 1e-9);
  EXPECT_TRUE(std::isinf(IoThroughputAt(m, 100)));
  CpuProfile cpu;
  cpu.measured = {{1, 8}, {4, 32}, {8, 40}};
  auto matrix = Matrix(cpu, m, {1, 2, 4, 8}, {0, 50, 100});
  ASSERT_EQ(matrix.size(), 12u);
  // (2 CPUs, 0 GB): min(interpolated 16, I/O 10) = 10; (8, 100): 40.
  EXPECT_NEAR(matrix[3].throughput, 10, 1e-9);
  EXPECT_NEAR(matrix[11].throughput, 40, 1e-9);
  EXPECT_NEAR(CpuThroughputAt(cpu, 2), 16, 1e-9);
}

}  // namespace
}  // namespace synergy::agent
