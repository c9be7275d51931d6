// Tenants' GPU quotas in the simulator (issue 44, item 5, the second
// driver): the trace's tenant column and SimConfig's quotas, the same
// phase of the core round as synergyd's auth.tenants.
#include <algorithm>

#include "gtest/gtest.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/trace.h"
#include "synergy/policy.h"
#include "test_support.h"

namespace synergy {
namespace {

// The most of `tenant`'s jobs that ran at once (first start to finish:
// FIFO with one-GPU jobs preempts none).
int MostAtOnce(const sim::SimResult& result, const std::string& tenant) {
  int most = 0;
  for (const sim::JobRecord& at : result.jobs) {
    if (at.spec.tenant != tenant) continue;
    int running = 0;
    for (const sim::JobRecord& j : result.jobs) {
      running += j.spec.tenant == tenant && j.start_s <= at.start_s && at.start_s < j.finish_s ? 1 : 0;
    }
    most = std::max(most, running);
  }
  return most;
}

TEST(SimTenantQuota, ATenantWithoutBorrowingRunsNoMoreThanItsQuotaAndABorrowerRunsOnIdleGpus) {
  const ModelZoo zoo = testing::ZooOrDie();
  const Cluster cluster = testing::DefaultClusterOrDie();
  std::string text = "job_id,model,arrival_s,iterations,gpus,tenant\n";
  for (int i = 0; i < 12; ++i) {
    text += std::to_string(i) + ",res18,0,2000,1," + (i % 2 == 0 ? "vision" : "nlp") + "\n";
  }
  auto jobs = sim::ParseTrace(text, "t.csv", zoo, cluster);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ((*jobs)[1].tenant, "nlp");
  EXPECT_NE(sim::FormatTrace(*jobs, zoo).find(",nlp\n"), std::string::npos) << "written back with the column";
  auto policy = *MakePolicy("fifo");
  auto mechanism = *MakeMechanism("tune");
  for (bool between_rounds : {false, true}) {
    sim::SimConfig c;
    c.cluster = &cluster;
    c.zoo = &zoo;
    c.policy = policy.get();
    c.mechanism = mechanism.get();
    c.launch_between_rounds = between_rounds;
    c.tenant_names = {"vision", "nlp"};
    c.tenants.quotas = {{2, false}, {2, true}};
    auto result = sim::RunTrace(c, *jobs);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(MostAtOnce(*result, "vision"), 2) << "between rounds " << between_rounds;
    EXPECT_EQ(MostAtOnce(*result, "nlp"), 6) << "nlp borrows what vision may not use";
    const sim::Summary summary = sim::Summarize(*result, cluster, 300);
    ASSERT_EQ(summary.by_tenant.size(), 2u);
    EXPECT_EQ(summary.by_tenant[0].tenant, "nlp");
    EXPECT_GT(summary.by_tenant[1].mean_wait_h, summary.by_tenant[0].mean_wait_h) << "vision's jobs queue";
    // Without quotas, all twelve run at once on 128 GPUs.
    c.tenants = {};
    auto free = sim::RunTrace(c, *jobs);
    ASSERT_TRUE(free.ok());
    EXPECT_EQ(MostAtOnce(*free, "vision"), 6);
  }
}

}  // namespace
}  // namespace synergy

namespace synergy {
namespace {

// Fair share in the simulator: the tenant that held GPUs lately waits
// behind the one that did not, whatever FIFO's arrival order says.
TEST(SimFairShare, TheTenantThatUsedLessGoesFirst) {
  const ModelZoo zoo = testing::ZooOrDie();
  const Cluster cluster = testing::DefaultClusterOrDie();  // 128 GPUs
  std::string text = "job_id,model,arrival_s,iterations,gpus,tenant\n";
  int id = 0;
  // heavy fills the cluster, then queues a second batch before light's.
  for (int i = 0; i < 16; ++i) text += std::to_string(id++) + ",res18,0,20000,8,heavy\n";
  for (int i = 0; i < 16; ++i) text += std::to_string(id++) + ",res18,10,20000,8,heavy\n";
  for (int i = 0; i < 16; ++i) text += std::to_string(id++) + ",res18,20,20000,8,light\n";
  auto jobs = sim::ParseTrace(text, "t.csv", zoo, cluster);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  auto policy = *MakePolicy("fifo");
  auto mechanism = *MakeMechanism("tune");
  sim::SimConfig c;
  c.cluster = &cluster;
  c.zoo = &zoo;
  c.policy = policy.get();
  c.mechanism = mechanism.get();
  c.launch_between_rounds = true;
  const auto mean_start = [](const sim::SimResult& r, int from, int to) {
    double sum = 0;
    for (int i = from; i < to; ++i) sum += r.jobs[i].start_s;
    return sum / (to - from);
  };
  auto fifo = sim::RunTrace(c, *jobs);
  ASSERT_TRUE(fifo.ok());
  EXPECT_LT(mean_start(*fifo, 16, 32), mean_start(*fifo, 32, 48)) << "FIFO: heavy's second batch first";
  c.fair_share_half_life_s = 7 * 86400;
  auto fair = sim::RunTrace(c, *jobs);
  ASSERT_TRUE(fair.ok());
  EXPECT_GT(mean_start(*fair, 16, 32), mean_start(*fair, 32, 48)) << "fair share: light's jobs first";
  // With a quota for one tenant only: the other is indexed after it, and
  // plans around running jobs (launches between rounds) count both.
  c.tenant_names = {"heavy"};
  c.tenants.quotas = {{64, true}};
  auto both = sim::RunTrace(c, *jobs);
  ASSERT_TRUE(both.ok());
  EXPECT_GT(mean_start(*both, 16, 32), mean_start(*both, 32, 48));
}

}  // namespace
}  // namespace synergy
