// Time limits in the simulator (issue 44, item 2): a job's run time over
// its leases ends it at its limit (trace column time_limit_s), counted as
// timed out, and a job within its limit finishes as before.
#include "gtest/gtest.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/trace.h"
#include "synergy/policy.h"
#include "test_support.h"

namespace synergy {
namespace {

TEST(SimTimeLimit, AJobEndsAtItsLimitOfRunTimeAndIsCountedTimedOut) {
  const ModelZoo zoo = testing::ZooOrDie();
  const Cluster cluster = testing::DefaultClusterOrDie();
  // Job 0 would run for years; job 1 is short and has room to spare.
  const std::string text =
      "job_id,model,arrival_s,iterations,gpus,time_limit_s\n"
      "0,res18,0,1000000000,1,3600\n"
      "1,res18,0,100,1,7200\n"
      "2,res18,0,100,1,\n";
  auto jobs = sim::ParseTrace(text, "t.csv", zoo, cluster);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ((*jobs)[0].time_limit_s, 3600);
  EXPECT_EQ((*jobs)[2].time_limit_s, 0);
  // Written back with the column.
  EXPECT_NE(sim::FormatTrace(*jobs, zoo).find("time_limit_s"), std::string::npos);
  auto policy = *MakePolicy("fifo");
  auto mechanism = *MakeMechanism("proportional");
  sim::SimConfig c;
  c.cluster = &cluster;
  c.zoo = &zoo;
  c.policy = policy.get();
  c.mechanism = mechanism.get();
  auto result = sim::RunTrace(c, *jobs);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->jobs.size(), 3u);
  const sim::JobRecord& limited = result->jobs[0];
  EXPECT_TRUE(limited.timed_out);
  EXPECT_NEAR(limited.finish_s - limited.start_s, 3600, 1e-6);  // it held its GPU throughout
  EXPECT_FALSE(result->jobs[1].timed_out);
  EXPECT_LT(result->jobs[1].finish_s, 3600);
  EXPECT_FALSE(result->jobs[2].timed_out);
  const sim::Summary summary = sim::Summarize(*result, cluster, 300);
  EXPECT_EQ(summary.timed_out, 1);
  EXPECT_EQ(summary.unfinished, 0);
  // A trace's limit must be a number of seconds.
  auto bad = sim::ParseTrace("job_id,model,arrival_s,iterations,gpus,time_limit_s\n0,res18,0,10,1,2h\n", "t.csv", zoo,
                             cluster);
  EXPECT_NE(bad.status().message().find("t.csv:2: time_limit_s: '2h'"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace synergy
