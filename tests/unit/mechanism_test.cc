#include "synergy/mechanism.h"

#include <set>

#include "gtest/gtest.h"
#include "synergy/job_view_rules.h"
#include "synergy/placement_state.h"
#include "synergy/round.h"
#include "test_support.h"

namespace synergy {
namespace {

class MechanismTest : public ::testing::Test {
 protected:
  Cluster cluster_ = testing::Homogeneous(2, 8, 24, 500);
  ModelZoo zoo_ = testing::ZooOrDie();

  Plan Place(const std::string& mechanism, const std::vector<JobView>& jobs) {
    auto m = MakeMechanism(mechanism);
    EXPECT_TRUE(m.ok());
    PlacementState state(cluster_);
    auto q = testing::Pointers(jobs);
    (*m)->Place(q, state);
    return state.TakePlan();
  }

  // A FIFO round of `jobs` at 1000.5 hours, past the starvation limit for
  // a job that never ran.
  RoundResult FifoRoundAtTheStarvationLimit(const std::vector<JobView>& jobs) {
    RoundInput in;
    in.now_s = 1000.5 * 3600;
    in.cluster = &cluster_;
    in.queue = testing::Pointers(jobs);
    return ScheduleRound(in, **MakePolicy("fifo"), **MakeMechanism("proportional"));
  }
};

TEST_F(MechanismTest, FitShareGivesEachGpuItsOwnServersShare) {
  const Cluster mixed({ServerSpec{"big", Resources{8, 24, 400, 0}}, ServerSpec{"small", Resources{2, 2, 8, 0}}});
  PlacementState state(mixed);
  // The small server is the fullest that takes 2 GPUs: 1 core and 4 GB each.
  auto two = state.FitShare(2);
  ASSERT_TRUE(two);
  ASSERT_EQ(two->size(), 1u);
  EXPECT_EQ((*two)[0].server, 1);
  EXPECT_EQ((*two)[0].resources, (Resources{2, 2, 8, 0}));
  // Spread over both (the fullest first): each GPU brings its own server's
  // share.
  auto nine = state.FitShare(9);
  ASSERT_TRUE(nine);
  ASSERT_EQ(nine->size(), 2u);
  EXPECT_EQ((*nine)[0].server, 0);
  EXPECT_EQ((*nine)[0].resources, (Resources{7, 21, 350, 0}));
  EXPECT_EQ((*nine)[1].server, 1);
  EXPECT_EQ((*nine)[1].resources, (Resources{2, 2, 8, 0}));
}

TEST_F(MechanismTest, ProportionalGivesAJobTheShareOfTheServerItLandsOn) {
  const Cluster mixed({ServerSpec{"big", Resources{8, 24, 400, 0}}, ServerSpec{"small", Resources{2, 2, 8, 0}}});
  PlacementState state(mixed);
  std::vector<JobView> jobs(2);
  jobs[0].id = 1;
  jobs[0].gpus = 8;
  jobs[1].id = 2;
  jobs[1].gpus = 2;
  for (JobView& j : jobs) SetModelFields(j, nullptr, mixed);
  for (const std::string name : {"proportional", "greedy", "tune", "tune-graded"}) {
    PlacementState st(mixed);
    auto q = testing::Pointers(jobs);
    (*MakeMechanism(name))->Place(q, st);
    const Plan plan = st.TakePlan();
    ASSERT_EQ(plan.assignments.size(), 2u) << name;
    EXPECT_EQ(plan.assignments[0].Total(), (Resources{8, 24, 400, 0})) << name;
    EXPECT_EQ(plan.assignments[1].Total(), (Resources{2, 2, 8, 0})) << name;
  }
}

TEST_F(MechanismTest, FitConsolidatesOnTheFullestServerThatFits) {
  PlacementState state(cluster_);
  state.Commit(Assignment{1, {Slice{1, Resources{4, 12, 250, 250}}}, 1, false});
  auto slices = state.Fit(Resources{2, 6, 125, 125});
  ASSERT_TRUE(slices);
  ASSERT_EQ(slices->size(), 1u);
  EXPECT_EQ((*slices)[0].server, 1);  // 4 free GPUs beats 8
}

TEST_F(MechanismTest, FitSpreadsGpuByGpuWhenNoServerTakesTheWholeJob) {
  PlacementState state(cluster_);
  state.Commit(Assignment{1, {Slice{0, Resources{6, 18, 375, 375}}}, 1, false});
  state.Commit(Assignment{2, {Slice{1, Resources{5, 15, 312.5, 312.5}}}, 1, false});
  // 2 + 3 GPUs free: the fullest server (0) gives its 2, then server 1.
  auto slices = state.Fit(Resources{4, 12, 250, 250});
  ASSERT_TRUE(slices);
  ASSERT_EQ(slices->size(), 2u);
  EXPECT_EQ((*slices)[0].server, 0);
  EXPECT_EQ((*slices)[0].resources, (Resources{2, 6, 125, 125}));
  EXPECT_EQ((*slices)[1].server, 1);
  EXPECT_EQ((*slices)[1].resources, (Resources{2, 6, 125, 125}));
  EXPECT_FALSE(state.Fit(Resources{6, 18, 375, 375}));
}

TEST_F(MechanismTest, FirstFitTakesServersInOrder) {
  PlacementState state(cluster_, GpuPlacement::kFirstFit);
  state.Commit(Assignment{1, {Slice{1, Resources{4, 12, 250, 250}}}, 1, false});
  auto slices = state.Fit(Resources{2, 6, 125, 125});
  ASSERT_TRUE(slices);
  ASSERT_EQ(slices->size(), 1u);
  EXPECT_EQ((*slices)[0].server, 0);  // not the fuller server 1
  // A server short of CPU is passed over GPU by GPU.
  state.Commit(Assignment{3, {Slice{0, Resources{1, 22, 10, 10}}}, 1, false});
  slices = state.Fit(Resources{2, 6, 125, 125});
  ASSERT_TRUE(slices);
  ASSERT_EQ(slices->size(), 1u);
  EXPECT_EQ((*slices)[0].server, 1);
}

TEST_F(MechanismTest, ProportionalGivesTheShare) {
  std::vector<JobView> jobs = {testing::MakeJob(zoo_, cluster_, 1, "alexnet", 2)};
  Plan plan = Place("proportional", jobs);
  ASSERT_EQ(plan.assignments.size(), 1u);
  EXPECT_EQ(plan.assignments[0].Total(), (Resources{2, 6, 125, 125}));
  EXPECT_EQ(plan.assignments[0].speedup, 1.0);
}

TEST_F(MechanismTest, RequestedGivesEachJobWhatItAskedForAndTheShareWhereItAskedNothing) {
  std::vector<JobView> jobs = {testing::MakeJob(zoo_, cluster_, 1, "alexnet", 2),
                               testing::MakeJob(zoo_, cluster_, 2, "alexnet", 1),
                               testing::MakeJob(zoo_, cluster_, 3, "alexnet", 1)};
  jobs[0].requested_cpus = 8;   // 4 cores a GPU, 30 GB: below the share in memory
  jobs[0].requested_mem_gb = 60;
  jobs[1].requested_cpus = 12;  // memory not recorded: the share
  Plan plan = Place("requested", jobs);
  ASSERT_EQ(plan.assignments.size(), 3u);
  EXPECT_EQ(plan.assignments[0].Total(), (Resources{2, 8, 60, 125}));
  EXPECT_EQ(plan.assignments[1].Total(), (Resources{1, 12, 62.5, 62.5}));
  EXPECT_EQ(plan.assignments[2].Total(), (Resources{1, 3, 62.5, 62.5}));
  // Each runs at what its profile gives the request: alexnet at 12 cores
  // and 62.5 GB reads 2 (its 2.94 needs 125 GB); at the share, 1.
  const SensitivityProfile& alexnet = zoo_.model(zoo_.Find("alexnet")).profile;
  EXPECT_EQ(plan.assignments[0].speedup, alexnet.SpeedupAt(4, 30));
  EXPECT_EQ(plan.assignments[1].speedup, 2.0);
  EXPECT_EQ(plan.assignments[2].speedup, 1.0);
}

TEST_F(MechanismTest, RequestedLeavesAJobWaitingWhenItsRequestDoesNotFit) {
  // 20 cores a GPU: one such job a server; the third waits though GPUs are
  // free, and the one-GPU job behind it takes one.
  std::vector<JobView> jobs;
  for (int i = 0; i < 3; ++i) {
    jobs.push_back(testing::MakeJob(zoo_, cluster_, i, "res18", 1));
    jobs.back().requested_cpus = 20;
  }
  jobs.push_back(testing::MakeJob(zoo_, cluster_, 3, "res18", 1));
  jobs.back().requested_cpus = 2;
  Plan plan = Place("requested", jobs);
  std::set<JobId> placed;
  for (const Assignment& a : plan.assignments) placed.insert(a.job);
  EXPECT_EQ(placed, (std::set<JobId>{0, 1, 3}));
}

TEST_F(MechanismTest, GreedySkipsJobsWhoseIdealDoesNotFit) {
  // Two alexnets want 12 cores each per GPU: two fit on a 24-core server,
  // a third GPU's 12 cores do not fit anywhere once both servers are full.
  std::vector<JobView> jobs;
  for (int i = 0; i < 5; ++i) jobs.push_back(testing::MakeJob(zoo_, cluster_, i, "alexnet", 1));
  Plan plan = Place("greedy", jobs);
  EXPECT_EQ(plan.assignments.size(), 4u);
  for (const Assignment& a : plan.assignments) EXPECT_EQ(a.speedup, 2.94);
}

TEST_F(MechanismTest, TuneFallsBackToProportionalThenRevertsPeers) {
  // Four alexnets at ideal (12 cores) take all 48 cores; the fifth goes to
  // proportional (3 cores) only after a peer is reverted to proportional.
  std::vector<JobView> jobs;
  for (int i = 0; i < 5; ++i) jobs.push_back(testing::MakeJob(zoo_, cluster_, i, "alexnet", 1));
  Plan plan = Place("tune", jobs);
  ASSERT_EQ(plan.assignments.size(), 5u);
  int at_ideal = 0;
  for (const Assignment& a : plan.assignments) {
    if (a.at_ideal) {
      ++at_ideal;
      EXPECT_EQ(a.speedup, 2.94);
    } else {
      EXPECT_EQ(a.Total(), cluster_.ProportionalShare(1));
      EXPECT_EQ(a.speedup, 1.0);
    }
  }
  EXPECT_EQ(at_ideal, 3);
  EXPECT_TRUE(plan.unplaced_after_revert.empty());
}

TEST_F(MechanismTest, RoundSelectsCountFitPrefixForLasAndLargestFirstUnderTune) {
  std::vector<JobView> jobs = {testing::MakeJob(zoo_, cluster_, 1, "gnmt", 1, 0),
                               testing::MakeJob(zoo_, cluster_, 2, "gnmt", 8, 1),
                               testing::MakeJob(zoo_, cluster_, 3, "gnmt", 8, 2),
                               testing::MakeJob(zoo_, cluster_, 4, "gnmt", 1, 3)};
  RoundInput in;
  in.cluster = &cluster_;
  in.queue = testing::Pointers(jobs);
  auto las = *MakePolicy("las");
  auto tune = *MakeMechanism("tune");
  RoundResult r = ScheduleRound(in, *las, *tune);
  // 1 + 8 fit by count (9 of 16), the second 8 does not, the last 1 does.
  ASSERT_EQ(r.plan.assignments.size(), 3u);
  EXPECT_EQ(r.plan.assignments[0].job, 2);  // largest first
  EXPECT_EQ(r.plan.assignments[1].job, 1);
  EXPECT_EQ(r.plan.assignments[2].job, 4);
}

TEST_F(MechanismTest, AHigherPriorityClassIsPlacedFirstUnderEveryPolicy) {
  // 16 GPUs, three 8-GPU jobs: the last to arrive is of a higher class and
  // the least served, yet it runs, and the first arrival takes the rest.
  for (const std::string policy : {"fifo", "srtf", "las", "ftf"}) {
    for (const std::string mechanism : {"proportional", "tune"}) {
    std::vector<JobView> jobs = {testing::MakeJob(zoo_, cluster_, 1, "gnmt", 8, 0),
                                 testing::MakeJob(zoo_, cluster_, 2, "gnmt", 8, 1),
                                 testing::MakeJob(zoo_, cluster_, 3, "gnmt", 8, 2, 100000)};
    jobs[2].priority_class = 5;
    jobs[0].attained_service_s = jobs[1].attained_service_s = 0;
    jobs[2].attained_service_s = 3600;
    RoundInput in;
    in.now_s = 10;
    in.cluster = &cluster_;
    in.queue = testing::Pointers(jobs);
    RoundResult r = ScheduleRound(in, **MakePolicy(policy), **MakeMechanism(mechanism));
    ASSERT_EQ(r.order.size(), 3u);
    EXPECT_EQ(r.order[0]->id, 3) << policy;
    std::set<JobId> placed;
    for (const Assignment& a : r.plan.assignments) placed.insert(a.job);
    EXPECT_EQ(placed, (std::set<JobId>{1, 3})) << policy << " " << mechanism;
    }
  }
}

TEST_F(MechanismTest, UnderTuneAHigherClassPicksServersBeforeLargerJobs) {
  // TUNE places larger jobs first, but within a class: the 1-GPU job of a
  // higher class is placed before the 8-GPU job of class 0.
  std::vector<JobView> jobs = {testing::MakeJob(zoo_, cluster_, 1, "gnmt", 8, 0),
                               testing::MakeJob(zoo_, cluster_, 2, "gnmt", 1, 1)};
  jobs[1].priority_class = 2;
  RoundInput in;
  in.cluster = &cluster_;
  in.queue = testing::Pointers(jobs);
  RoundResult r = ScheduleRound(in, **MakePolicy("las"), **MakeMechanism("tune"));
  ASSERT_EQ(r.plan.assignments.size(), 2u);
  EXPECT_EQ(r.plan.assignments[0].job, 2);
  EXPECT_EQ(r.plan.assignments[1].job, 1);
}

TEST_F(MechanismTest, StarvedJobsAreBumped) {
  std::vector<JobView> jobs = {testing::MakeJob(zoo_, cluster_, 1, "gnmt", 1, 0),
                               testing::MakeJob(zoo_, cluster_, 2, "gnmt", 1, 0)};
  jobs[1].last_execution_end_s = 999.0 * 3600;
  RoundResult r = FifoRoundAtTheStarvationLimit(jobs);
  ASSERT_EQ(r.bumped.size(), 1u);
  EXPECT_EQ(r.bumped[0]->id, 1);
}

TEST_F(MechanismTest, StarvedJobsAreBumpedInTheOrderOfTheirClasses) {
  std::vector<JobView> jobs = {testing::MakeJob(zoo_, cluster_, 1, "gnmt", 1, 0),
                               testing::MakeJob(zoo_, cluster_, 2, "gnmt", 1, 1),
                               testing::MakeJob(zoo_, cluster_, 3, "gnmt", 1, 2)};
  jobs[2].priority_class = 1;  // FIFO puts it last; its class puts it first
  jobs[1].last_execution_end_s = 999.0 * 3600;  // not starved
  RoundResult r = FifoRoundAtTheStarvationLimit(jobs);
  ASSERT_EQ(r.bumped.size(), 2u);
  EXPECT_EQ(r.bumped[0]->id, 3);
  EXPECT_EQ(r.bumped[1]->id, 1);
}

TEST_F(MechanismTest, StarvedJobsOfAQueueOutOfOrderAreBumpedOnceInThePolicysOrder) {
  // Arrivals 2, 0, 1: the first job's key is checked and it is found
  // starved before the second shows the queue out of order.
  std::vector<JobView> jobs = {testing::MakeJob(zoo_, cluster_, 3, "gnmt", 1, 2),
                               testing::MakeJob(zoo_, cluster_, 1, "gnmt", 1, 0),
                               testing::MakeJob(zoo_, cluster_, 2, "gnmt", 1, 1)};
  jobs[2].last_execution_end_s = 999.0 * 3600;  // not starved
  RoundResult r = FifoRoundAtTheStarvationLimit(jobs);
  ASSERT_EQ(r.order.size(), 3u);
  EXPECT_EQ(r.order[0]->id, 1);
  EXPECT_EQ(r.order[1]->id, 2);
  EXPECT_EQ(r.order[2]->id, 3);
  ASSERT_EQ(r.bumped.size(), 2u);
  EXPECT_EQ(r.bumped[0]->id, 1);
  EXPECT_EQ(r.bumped[1]->id, 3);
}

}  // namespace
}  // namespace synergy
