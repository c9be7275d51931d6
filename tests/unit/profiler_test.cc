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

// A pipeline that saturates at 3 of 4 CPUs, measured while the machine
// slows down by 30% after the first reading and recovers after the third:
// one pass reads the knee as 4 (3 CPUs seem 30% short of the best); a
// second pass keeps each point's best reading and finds 3 again.
TEST(Profiler, ASecondPassOutweighsASlowSpellDuringTheFirst) {
  auto profile = [](int passes, int* calls) {
    ProfilerOptions options;
    options.passes = passes;
    return ProfileCpus(4, [calls](int c, int) {
      const double slow = (*calls >= 1 && *calls <= 2) ? 0.7 : 1.0;
      ++*calls;
      return slow * 10.0 * std::min(c, 3);
    }, options);
  };
  int one_pass = 0;
  EXPECT_EQ(profile(1, &one_pass).knee, 4);
  int calls = 0;
  const CpuProfile p = profile(2, &calls);
  EXPECT_EQ(p.knee, 3);
  EXPECT_EQ(calls, 2 * one_pass);  // the same points again
  // One entry per CPU count, each its best reading.
  ASSERT_EQ(p.measured.size(), 3u);
  for (const CpuPoint& point : p.measured) {
    EXPECT_DOUBLE_EQ(point.throughput, 10.0 * std::min(point.cpus, 3)) << point.cpus << " cpus";
  }
}

TEST(Profiler, MorePassesOfASteadyPipelineFindTheSameKneeAndCountEveryReading) {
  for (int knee = 1; knee <= 16; ++knee) {
    ProfilerOptions options;
    options.passes = 3;
    int calls = 0;
    const CpuProfile p = ProfileCpus(16, [&](int c, int) {
      ++calls;
      return 10.0 * std::min(c, knee);
    }, options);
    EXPECT_EQ(p.knee, ProfileCpus(16, [&](int c, int) { return 10.0 * std::min(c, knee); }).knee) << knee;
    EXPECT_EQ(calls, 3 * static_cast<int>(p.measured.size())) << knee;
    double seconds = 0;
    for (const CpuPoint& point : p.measured) seconds += 3 * 50 / point.throughput;
    EXPECT_NEAR(p.seconds, seconds, 1e-9) << knee;
  }
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
