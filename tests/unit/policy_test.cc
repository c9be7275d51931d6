#include "synergy/policy.h"

#include "gtest/gtest.h"
#include "test_support.h"

namespace synergy {
namespace {

std::vector<JobId> Ids(const std::vector<const JobView*>& q) {
  std::vector<JobId> ids;
  for (const JobView* j : q) ids.push_back(j->id);
  return ids;
}

std::vector<JobId> OrderWith(const std::string& name, std::vector<JobView>& jobs,
                             PolicyContext ctx = {}) {
  auto policy = MakePolicy(name);
  EXPECT_TRUE(policy.ok());
  auto q = testing::Pointers(jobs);
  (*policy)->Order(q, ctx);
  return Ids(q);
}

JobView Job(JobId id, double arrival, double remaining, double total = 1000) {
  JobView j;
  j.id = id;
  j.arrival_s = arrival;
  j.iteration_time_s = 1;
  j.total_iterations = total;
  j.remaining_iterations = remaining;
  return j;
}

TEST(Policy, RegistryKnowsFourAndRefusesOthers) {
  for (const std::string& n : PolicyNames()) EXPECT_TRUE(MakePolicy(n).ok()) << n;
  auto bad = MakePolicy("round-robin");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("round-robin"), std::string::npos);
}

TEST(Policy, FifoByArrivalStable) {
  std::vector<JobView> jobs = {Job(1, 30, 1), Job(2, 10, 1), Job(3, 30, 1), Job(4, 20, 1)};
  EXPECT_EQ(OrderWith("fifo", jobs), (std::vector<JobId>{2, 4, 1, 3}));
}

TEST(Policy, SrtfPriorityThenRemainingThenArrival) {
  std::vector<JobView> jobs = {Job(1, 0, 500), Job(2, 5, 100), Job(3, 1, 100), Job(4, 9, 900)};
  jobs[3].priority = 1;
  EXPECT_EQ(OrderWith("srtf", jobs), (std::vector<JobId>{4, 3, 2, 1}));
}

TEST(Policy, SrtfDividesBySpeedupOnlyWhenTheMechanismUsesIt) {
  std::vector<JobView> jobs = {Job(1, 0, 300), Job(2, 1, 200)};
  jobs[0].last_round_speedup = 2.0;  // 150 s left at its speed
  EXPECT_EQ(OrderWith("srtf", jobs), (std::vector<JobId>{2, 1}));
  PolicyContext ctx;
  ctx.mechanism_uses_speedup = true;
  EXPECT_EQ(OrderWith("srtf", jobs, ctx), (std::vector<JobId>{1, 2}));
}

TEST(Policy, LasCountsGpuSeconds) {
  std::vector<JobView> jobs = {Job(1, 0, 1), Job(2, 1, 1), Job(3, 2, 1)};
  jobs[0].attained_service_s = 300;  // 1 GPU: 300 GPU-s
  jobs[0].gpus = 1;
  jobs[1].attained_service_s = 200;  // 4 GPUs: 800 GPU-s
  jobs[1].gpus = 4;
  jobs[2].attained_service_s = 0;
  EXPECT_EQ(OrderWith("las", jobs), (std::vector<JobId>{3, 1, 2}));
  EXPECT_EQ((*MakePolicy("las"))->selection(), Selection::kCountFitFirst);
}

TEST(Policy, FtfServesWorstTreatedFirstExceptInReferenceMode) {
  // rho = (now - arrival + remaining) / total: job 1 waited long (rho 10),
  // job 2 just arrived (rho 1).
  std::vector<JobView> jobs = {Job(1, 0, 100, 100), Job(2, 900, 100, 100)};
  PolicyContext ctx;
  ctx.now_s = 900;
  EXPECT_EQ(OrderWith("ftf", jobs, ctx), (std::vector<JobId>{1, 2}));
  ctx.reference_compatible = true;
  EXPECT_EQ(OrderWith("ftf", jobs, ctx), (std::vector<JobId>{2, 1}));
}

}  // namespace
}  // namespace synergy
