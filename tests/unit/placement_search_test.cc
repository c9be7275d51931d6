// The consolidating Fit finds the same servers through the FreeServerIndex
// (large clusters) as by walking the servers by free GPUs (small ones):
// two states of one cluster, one each way, given the same random demands,
// commits and releases.
#include <algorithm>
#include <climits>
#include <random>

#include "gtest/gtest.h"
#include "synergy/placement_state.h"
#include "test_support.h"

namespace synergy {
namespace {

void ExpectSameSlices(const std::optional<Slices>& indexed,
                      const std::optional<Slices>& walked, const std::string& label) {
  ASSERT_EQ(indexed.has_value(), walked.has_value()) << label;
  if (!indexed) return;
  ASSERT_EQ(indexed->size(), walked->size()) << label;
  for (size_t i = 0; i < indexed->size(); ++i) {
    EXPECT_EQ((*indexed)[i].server, (*walked)[i].server) << label << " slice " << i;
    EXPECT_EQ((*indexed)[i].resources, (*walked)[i].resources) << label << " slice " << i;
  }
}

TEST(PlacementSearchTest, TheIndexFindsTheServersTheWalkWould) {
  std::mt19937 rng(5);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  int placed = 0;
  for (int trial = 0; trial < 40; ++trial) {
    // Up to 20 servers (one or two levels of the index), or 65 to 600 (three to four).
    const int servers = trial % 4 == 3 ? 65 + pick(536) : 1 + pick(20);
    const int gpus = std::vector<int>{2, 4, 8}[pick(3)];
    const Cluster cluster = testing::Homogeneous(servers, gpus, 3.0 * gpus, 62.5 * gpus, 500);
    PlacementState indexed(cluster, GpuPlacement::kConsolidate, /*indexed_from_servers=*/0);
    PlacementState walked(cluster, GpuPlacement::kConsolidate, /*indexed_from_servers=*/INT_MAX);
    std::vector<JobId> jobs;
    for (int step = 0; step < 300; ++step) {
      const std::string label = "trial " + std::to_string(trial) + " step " + std::to_string(step);
      if (!jobs.empty() && pick(4) == 0) {
        const size_t k = static_cast<size_t>(pick(static_cast<int>(jobs.size())));
        indexed.Release(jobs[k]);
        walked.Release(jobs[k]);
        jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(k));
        continue;
      }
      // Per GPU: a few CPU and memory sizes, some over a server's share,
      // so that servers run out of CPUs or memory with GPUs still free.
      const int g = std::vector<int>{1, 1, 1, 2, 3, 4, 8}[pick(7)];
      const Resources demand{g, g * 1.5 * pick(5), g * 31.25 * pick(5), g * 62.5 * pick(2)};
      const auto slices = indexed.Fit(demand);
      ASSERT_NO_FATAL_FAILURE(ExpectSameSlices(slices, walked.Fit(demand), label));
      if (!slices) continue;
      const JobId id = trial * 1000 + step;
      indexed.Commit(Assignment{id, *slices, 1.0, false});
      walked.Commit(Assignment{id, *slices, 1.0, false});
      jobs.push_back(id);
      ++placed;
    }
  }
  EXPECT_GT(placed, 1000);  // the searches did place jobs
}

TEST(PlacementSearchTest, FirstWithFreeGpusIsTheLowestServerWithEnough) {
  // 4,200 servers: two words of the sets' summaries.
  std::mt19937 rng(11);
  const int servers = 4200;
  const Cluster cluster = testing::Homogeneous(servers, 4, 12, 250);
  PlacementState state(cluster);
  auto lowest_with = [&](int gpus) {
    for (int s = 0; s < servers; ++s) {
      if (state.available(s).gpus >= gpus) return s;
    }
    return -1;
  };
  std::vector<JobId> jobs;
  int frontier = 0;  // jobs fill the servers in order, so the lowest with enough moves through both words
  int most_lowest = -1;
  for (int step = 0; frontier < servers; ++step) {
    if (!jobs.empty() && rng() % 5 == 0) {
      // The last job leaves; the next fill its server first.
      frontier = state.Find(jobs.back())->slices[0].server;
      state.Release(jobs.back());
      jobs.pop_back();
    } else {
      const int gpus = 1 + static_cast<int>(rng() % 2);
      if (state.available(frontier).gpus < gpus) {
        ++frontier;
        continue;
      }
      Assignment a;
      a.job = step;
      a.slices.push_back(Slice{frontier, Resources{gpus, 1, 10, 0}});
      state.Commit(std::move(a));
      jobs.push_back(step);
    }
    if (step % 16 != 0) continue;
    for (int gpus = 1; gpus <= 5; ++gpus) {
      ASSERT_EQ(state.FirstWithFreeGpus(gpus), lowest_with(gpus)) << "step " << step << " gpus " << gpus;
    }
    most_lowest = std::max(most_lowest, lowest_with(4));
  }
  EXPECT_GT(most_lowest, 4096);  // into the second summary word
  EXPECT_EQ(state.FirstWithFreeGpus(4), -1);
}

}  // namespace
}  // namespace synergy
