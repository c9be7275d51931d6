#include "daemon/state/lease_table.h"

#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

v1::Lease LeaseOf(const std::string& job, int64_t epoch, const std::string& node, std::vector<int> gpus,
                  std::vector<int> cpus) {
  v1::Lease lease;
  lease.set_job_id(job);
  lease.set_epoch(epoch);
  v1::LeaseSlice* s = lease.add_slices();
  s->set_node(node);
  for (int g : gpus) s->add_gpu_ids(g);
  for (int c : cpus) s->add_cpu_ids(c);
  return lease;
}

TEST(LeaseTable, GrantedIdsFollowCurrentLeasesAndHeldIdsFollowProcesses) {
  LeaseTable t;
  const v1::Lease a = LeaseOf("j-000001", 1, "n1", {0, 1}, {0, 1, 2});
  t.IndexCurrent(a);
  EXPECT_EQ(t.CurrentOn("n1"), (std::set<std::string>{"j-000001"}));
  EXPECT_EQ(t.GrantedGpus("n1"), (std::set<int>{0, 1}));
  t.Hold("n1", {"j-000001", 1}, {{0, 1}, {0, 1, 2}});
  // The lease ends: its ids are free to grant at once, but its process
  // holds them until its exit is reported.
  t.ForgetCurrent(a);
  EndingLease ending;
  ending.lease = a;
  t.StartEnding(ending);
  EXPECT_TRUE(t.CurrentOn("n1").empty());
  EXPECT_TRUE(t.GrantedGpus("n1").empty());
  EXPECT_TRUE(t.Holds("n1", {"j-000001", 1}));
  EXPECT_EQ(t.EndingOn("n1"), (std::set<LeaseTable::JobEpoch>{{"j-000001", 1}}));
  EXPECT_TRUE(t.AnyEnding("j-000001"));
  t.Release("n1", {"j-000001", 1});
  t.FinishEnding("j-000001", 1);
  EXPECT_TRUE(t.HeldOn("n1").empty());
  EXPECT_TRUE(t.EndingOn("n1").empty());
  EXPECT_FALSE(t.AnyEnding("j-000001"));
}

TEST(LeaseTable, AnUndoneChangeLeavesEveryIndexAndTheEpochAsTheyWere) {
  LeaseTable t;
  t.RestoreNextEpoch(7);
  const v1::Lease kept = LeaseOf("j-000001", 6, "n1", {0}, {0});
  t.IndexCurrent(kept);
  t.Open();
  EXPECT_EQ(t.TakeEpoch(), 7);
  t.IndexCurrent(LeaseOf("j-000002", 7, "n1", {1}, {1}));
  t.ForgetCurrent(kept);
  t.Hold("n1", {"j-000002", 7}, {{1}, {1}});
  v1::StopOrder stop;
  stop.set_job_id("j-000001");
  stop.set_epoch(6);
  t.OrderStop("n1", stop);
  t.Undo();
  EXPECT_EQ(t.next_epoch(), 7) << "an epoch of an undone change is given again: it was never told";
  EXPECT_EQ(t.CurrentOn("n1"), (std::set<std::string>{"j-000001"}));
  EXPECT_EQ(t.GrantedGpus("n1"), (std::set<int>{0}));
  EXPECT_TRUE(t.HeldOn("n1").empty());
  EXPECT_TRUE(t.StopsFor("n1", {{"j-000001", 6}}).empty());
}

TEST(LeaseTable, AStopOrderedTwiceIsOneOrderWithTheShorterGrace) {
  LeaseTable t;
  v1::StopOrder stop;
  stop.set_job_id("j-000001");
  stop.set_epoch(3);
  stop.set_grace_ms(5000);
  t.OrderStop("n1", stop);
  stop.set_grace_ms(1000);
  t.OrderStop("n1", stop);
  const std::vector<v1::StopOrder> sent = t.StopsFor("n1", {{"j-000001", 3}});
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].grace_ms(), 1000);
}

TEST(LeaseTable, AStopGoesWithEveryReplyUntilTheNodeNoLongerReportsTheProcess) {
  LeaseTable t;
  v1::StopOrder stop;
  stop.set_job_id("j-000001");
  stop.set_epoch(3);
  t.OrderStop("n1", stop);
  stop.set_job_id("j-000002");
  t.OrderStop("n1", stop);
  const std::set<LeaseTable::JobEpoch> both = {{"j-000001", 3}, {"j-000002", 3}};
  EXPECT_EQ(t.StopsFor("n1", both).size(), 2u) << "the first reply";
  EXPECT_EQ(t.StopsFor("n1", both).size(), 2u) << "a reply may be lost: not taken for delivered";
  const std::vector<v1::StopOrder> left = t.StopsFor("n1", {{"j-000002", 3}});
  ASSERT_EQ(left.size(), 1u) << "j-000001 is no longer reported";
  EXPECT_EQ(left[0].job_id(), "j-000002");
  ASSERT_EQ(t.StopsFor("n1", both).size(), 1u) << "j-000001's order is over once its process was gone";
  EXPECT_TRUE(t.StopsFor("n1", {}).empty());
  EXPECT_TRUE(t.StopsFor("n1", both).empty()) << "j-000002's is over too";
  EXPECT_TRUE(t.StopsFor("n2", both).empty()) << "another node's";
}

}  // namespace
}  // namespace synergy::daemon
