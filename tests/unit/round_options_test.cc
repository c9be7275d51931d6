// RoundOptions gives every job the options OptionsAtOrAboveProportional
// works out for it alone, whichever jobs of other shapes asked first.
#include "placement/mechanisms.h"

#include "gtest/gtest.h"
#include "test_support.h"

namespace synergy::mechanisms {
namespace {

TEST(RoundOptionsTest, EachJobGetsTheOptionsWorkedOutForItAlone) {
  const Cluster cluster = testing::Homogeneous(2, 8, 24, 500);
  const ModelZoo zoo = testing::ZooOrDie();
  std::vector<JobView> jobs;
  JobId id = 0;
  for (const auto& model : zoo.models()) {
    for (int gpus : {1, 2, 4, 8}) {
      JobView job = testing::MakeJob(zoo, cluster, ++id, model.name, gpus);
      jobs.push_back(job);
      // The same model and GPUs with another ideal: another shape.
      job.id = ++id;
      job.ideal_speedup *= 1.25;
      jobs.push_back(job);
      job.id = ++id;
      job.ideal_demand.cpus /= 2;
      jobs.push_back(job);
      job.id = ++id;
      job.ideal_demand.mem_gb /= 2;
      jobs.push_back(job);
      if (gpus > 1) {  // an ideal for fewer GPUs than the job's: other per-GPU points
        job.id = ++id;
        job.ideal_demand.gpus = gpus / 2;
        jobs.push_back(job);
      }
    }
  }
  RoundOptions round_options(cluster);
  // Each job twice, the second time from the shapes already worked out.
  for (int pass = 0; pass < 2; ++pass) {
    for (const JobView& job : jobs) {
      const std::vector<Option> alone = OptionsAtOrAboveProportional(job, cluster);
      const std::vector<Option>& shared = round_options.For(job);
      ASSERT_EQ(shared.size(), alone.size()) << "job " << job.id;
      for (size_t i = 0; i < alone.size(); ++i) {
        EXPECT_EQ(shared[i].per_gpu, alone[i].per_gpu) << "job " << job.id << " option " << i;
        EXPECT_EQ(shared[i].speedup, alone[i].speedup) << "job " << job.id << " option " << i;
        EXPECT_EQ(shared[i].ideal, alone[i].ideal) << "job " << job.id << " option " << i;
      }
    }
  }
}

}  // namespace
}  // namespace synergy::mechanisms
