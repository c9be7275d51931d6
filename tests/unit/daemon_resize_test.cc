// Resize in place through DaemonState (daemon/round/resize_in_place.cc): a job
// whose agent follows resizes keeps one lease while TUNE moves its CPUs and
// memory; the node is ordered to change the cgroup first, the agent hears
// of it only once the node has, and a lower memory limit waits for the
// agent's confirmation or the grace.
#include <algorithm>

#include "daemon_state_fixture.h"

namespace synergy::daemon {
namespace {

v1::RunningProcess RunningWith(const std::string& job, int64_t epoch, int64_t revision, double mem_limit_gb) {
  v1::RunningProcess p;
  p.set_job_id(job);
  p.set_epoch(epoch);
  p.set_pid(100);
  p.set_revision(revision);
  p.set_mem_limit_gb(mem_limit_gb);
  return p;
}

v1::ProgressReport Report(const std::string& job, int64_t epoch, bool can_resize, int64_t applied = 0) {
  v1::ProgressReport r;
  r.set_job_id(job);
  r.set_epoch(epoch);
  r.set_iterations_done(10);
  r.set_throughput(5);
  r.set_can_resize(can_resize);
  r.set_applied_revision(applied);
  return r;
}

const v1::ResizeOrder* OrderFor(const v1::HeartbeatResponse& beat, const std::string& job) {
  for (const v1::ResizeOrder& r : beat.resize()) {
    if (r.job_id() == job) return &r;
  }
  return nullptr;
}

bool Disjoint(const v1::LeaseSlice& a, const v1::LeaseSlice& b) {
  for (int c : a.cpu_ids()) {
    if (std::count(b.cpu_ids().begin(), b.cpu_ids().end(), c) > 0) return false;
  }
  return true;
}

class ResizeTest : public DaemonStateTest {
 protected:
  // TUNE on one node of 2 GPUs, 8 CPUs and 32 GB: a CPU-sensitive job (res18)
  // alone gets more than its share; its agent says whether it follows
  // resizes.
  void StartAlone(bool follows_resizes = true) {
    config_.policy = "fifo";
    config_.mechanism = "tune";
    s_ = Open();
    AddNode(*s_, "n1", 2, 8, 32, 0);
    a_ = *s_->Submit(Spec(1, "res18", 1000000), "alice", 0);
    ASSERT_TRUE(s_->RunRound(0).ok());
    const v1::Lease lease = s_->GetJob(a_)->lease();
    epoch_ = lease.epoch();
    alone_ = lease.slices(0);
    ASSERT_EQ(Beat(*s_, "n1", 10).launch_size(), 1);
    Beat(*s_, "n1", 15, {RunningWith(a_, epoch_, 0, alone_.mem_gb())});  // launched
    auto reply = s_->ReportProgress(Report(a_, epoch_, follows_resizes), 20);
    ASSERT_TRUE(reply.ok()) << reply.status();
    EXPECT_EQ(reply->revision(), 0) << "nothing resized yet";
    ASSERT_EQ(s_->GetJob(a_)->lease().resizable(), follows_resizes) << "stored once the agent says so";
    ASSERT_GT(alone_.cpu_ids_size(), 4) << "alone, TUNE gives the sensitive job more than its share of 4";
  }

  std::unique_ptr<DaemonState> s_;
  std::string a_;
  int64_t epoch_ = 0;
  v1::LeaseSlice alone_;
};

TEST_F(ResizeTest, APeerShrinksTheJobInPlaceAndTheNodeChangesItBeforeTheAgentHears) {
  StartAlone();
  const std::string b = *s_->Submit(Spec(1, "res18", 1000), "bob", 1000);
  ASSERT_TRUE(s_->RunRound(60000).ok());
  const v1::Job job = *s_->GetJob(a_);
  ASSERT_TRUE(job.has_lease());
  EXPECT_EQ(job.lease().epoch(), epoch_) << "the same lease: no restart";
  EXPECT_EQ(job.lease().revision(), 1);
  EXPECT_EQ(job.resizes(), 1);
  EXPECT_EQ(job.attempts(), 1);
  const v1::LeaseSlice shrunk = job.lease().slices(0);
  EXPECT_LT(shrunk.cpu_ids_size(), alone_.cpu_ids_size());
  for (int c : shrunk.cpu_ids()) {
    EXPECT_TRUE(std::count(alone_.cpu_ids().begin(), alone_.cpu_ids().end(), c)) << "keeps CPU ids it had: " << c;
  }
  EXPECT_EQ(s_->counters().leases_resized, 1);
  const v1::LeaseSlice peer = s_->GetJob(b)->lease().slices(0);
  EXPECT_TRUE(Disjoint(shrunk, peer));

  // Before the node applies it the agent is told nothing.
  auto before = s_->ReportProgress(Report(a_, epoch_, true), 60010);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->revision(), 0);
  EXPECT_FALSE(before->lease_ending());

  // The node's next heartbeat carries the resize; the peer is launched on
  // the freed CPUs only once the node reports it applied it.
  v1::HeartbeatResponse beat = Beat(*s_, "n1", 60020, {RunningWith(a_, epoch_, 0, alone_.mem_gb())});
  const v1::ResizeOrder* order = OrderFor(beat, a_);
  ASSERT_NE(order, nullptr);
  EXPECT_EQ(order->revision(), 1);
  EXPECT_EQ(order->cpu_ids_size(), shrunk.cpu_ids_size());
  const double held_limit = order->mem_limit_gb();
  EXPECT_DOUBLE_EQ(held_limit, std::max(alone_.mem_gb(), shrunk.mem_gb()))
      << "memory is not lowered before the job sheds";
  EXPECT_EQ(beat.launch_size(), 0) << "the job may still run on the CPUs the peer gets";
  beat = Beat(*s_, "n1", 60025, {RunningWith(a_, epoch_, 0, alone_.mem_gb())});
  EXPECT_NE(OrderFor(beat, a_), nullptr) << "repeated until the node reports it applied";
  EXPECT_EQ(beat.launch_size(), 0);

  // Applied: no order again, the peer launches, and the agent hears its
  // allocation.
  beat = Beat(*s_, "n1", 60030, {RunningWith(a_, epoch_, 1, held_limit)});
  EXPECT_EQ(OrderFor(beat, a_), nullptr);
  ASSERT_EQ(beat.launch_size(), 1);
  EXPECT_EQ(beat.launch(0).job_id(), b);
  auto told = s_->ReportProgress(Report(a_, epoch_, true), 60040);
  ASSERT_TRUE(told.ok());
  EXPECT_EQ(told->revision(), 1);
  EXPECT_EQ(told->cpu_ids_size(), shrunk.cpu_ids_size());
  EXPECT_DOUBLE_EQ(told->mem_gb(), shrunk.mem_gb());
  v1::ProgressReply board_reply;
  ASSERT_TRUE(s_->progress_board().Take(Report(a_, epoch_, true, 0), board_reply));
  EXPECT_EQ(board_reply.revision(), 1) << "reports without news are answered by the board, with the allocation";
}

TEST_F(ResizeTest, ALowerMemoryLimitWaitsForTheAgentsConfirmation) {
  StartAlone();
  *s_->Submit(Spec(1, "res18", 1000), "bob", 1000);
  ASSERT_TRUE(s_->RunRound(60000).ok());
  const v1::LeaseSlice shrunk = s_->GetJob(a_)->lease().slices(0);
  if (!(shrunk.mem_gb() < alone_.mem_gb())) GTEST_SKIP() << "the plan did not lower the job's memory";
  EXPECT_DOUBLE_EQ(shrunk.mem_limit_gb(), alone_.mem_gb());
  Beat(*s_, "n1", 60010, {RunningWith(a_, epoch_, 0, alone_.mem_gb())});
  // An agent cannot confirm what it cannot have heard of.
  ASSERT_TRUE(s_->ReportProgress(Report(a_, epoch_, true, 1), 60015).ok());
  EXPECT_EQ(s_->GetJob(a_)->lease().applied_revision(), 0) << "taken before the node applied it";
  Beat(*s_, "n1", 60020, {RunningWith(a_, epoch_, 1, alone_.mem_gb())});
  // A report that is news (applied 1) goes past the board to the daemon.
  v1::ProgressReply unused;
  EXPECT_FALSE(s_->progress_board().Take(Report(a_, epoch_, true, 1), unused));
  ASSERT_TRUE(s_->ReportProgress(Report(a_, epoch_, true, 1), 60030).ok());
  const v1::Lease confirmed = s_->GetJob(a_)->lease();
  EXPECT_EQ(confirmed.applied_revision(), 1);
  EXPECT_DOUBLE_EQ(confirmed.slices(0).mem_limit_gb(), shrunk.mem_gb());
  const v1::HeartbeatResponse beat = Beat(*s_, "n1", 60040, {RunningWith(a_, epoch_, 1, alone_.mem_gb())});
  const v1::ResizeOrder* order = OrderFor(beat, a_);
  ASSERT_NE(order, nullptr) << "the node lowers the limit now";
  EXPECT_DOUBLE_EQ(order->mem_limit_gb(), shrunk.mem_gb());
  // Stored: a restarted daemon keeps the revision and the lowered limit.
  s_.reset();
  auto reopened = Open(70000);
  const v1::Lease loaded = reopened->GetJob(a_)->lease();
  EXPECT_EQ(loaded.revision(), 1);
  EXPECT_EQ(loaded.applied_revision(), 1);
  EXPECT_DOUBLE_EQ(loaded.slices(0).mem_limit_gb(), shrunk.mem_gb());
}

TEST_F(ResizeTest, AnUnconfirmedShrinkLowersTheMemoryLimitAfterTheGrace) {
  StartAlone();
  *s_->Submit(Spec(1, "res18", 1000), "bob", 1000);
  ASSERT_TRUE(s_->RunRound(60000).ok());
  const v1::LeaseSlice shrunk = s_->GetJob(a_)->lease().slices(0);
  if (!(shrunk.mem_gb() < alone_.mem_gb())) GTEST_SKIP() << "the plan did not lower the job's memory";
  Beat(*s_, "n1", 60010, {RunningWith(a_, epoch_, 0, alone_.mem_gb())});
  const int64_t grace_ms = static_cast<int64_t>(config_.lease_grace_s * 1000);
  ASSERT_TRUE(s_->Tick(60000 + grace_ms + 10).ok());
  EXPECT_DOUBLE_EQ(s_->GetJob(a_)->lease().slices(0).mem_limit_gb(), alone_.mem_gb())
      << "the grace counts from the node applying the revision (the agent could not shed before)";
  Beat(*s_, "n1", 70000, {RunningWith(a_, epoch_, 1, alone_.mem_gb())});
  ASSERT_TRUE(s_->Tick(70000 + 1000).ok());
  EXPECT_DOUBLE_EQ(s_->GetJob(a_)->lease().slices(0).mem_limit_gb(), alone_.mem_gb()) << "within lease_grace_s";
  ASSERT_TRUE(s_->Tick(70000 + grace_ms + 10).ok());
  EXPECT_DOUBLE_EQ(s_->GetJob(a_)->lease().slices(0).mem_limit_gb(), shrunk.mem_gb());
}

TEST_F(ResizeTest, ThePeerLeavingGrowsTheJobBackInTheSameLease) {
  StartAlone();
  const std::string b = *s_->Submit(Spec(1, "res18", 1000), "bob", 1000);
  ASSERT_TRUE(s_->RunRound(60000).ok());
  const int64_t b_epoch = s_->GetJob(b)->lease().epoch();
  Beat(*s_, "n1", 60010, {RunningWith(a_, epoch_, 0, alone_.mem_gb())});
  ASSERT_TRUE(s_->Cancel(b, 60020).ok());
  // The peer's process exits; the next round grows the job into its CPUs.
  Beat(*s_, "n1", 60030, {RunningWith(a_, epoch_, 1, alone_.mem_gb())}, {Exit(b, b_epoch, 0)});
  ASSERT_TRUE(s_->RunRound(120000).ok());
  const v1::Job job = *s_->GetJob(a_);
  EXPECT_EQ(job.lease().epoch(), epoch_);
  EXPECT_EQ(job.lease().revision(), 2);
  EXPECT_EQ(job.lease().slices(0).cpu_ids_size(), alone_.cpu_ids_size());
  EXPECT_EQ(job.resizes(), 2);
  const v1::HeartbeatResponse beat = Beat(*s_, "n1", 120010, {RunningWith(a_, epoch_, 1, alone_.mem_gb())});
  const v1::ResizeOrder* order = OrderFor(beat, a_);
  ASSERT_NE(order, nullptr);
  EXPECT_EQ(order->revision(), 2);
  EXPECT_EQ(order->cpu_ids_size(), alone_.cpu_ids_size());
}

TEST_F(ResizeTest, AJobWhoseAgentDoesNotFollowResizesIsRestartedAsBefore) {
  StartAlone(/*follows_resizes=*/false);
  *s_->Submit(Spec(1, "res18", 1000), "bob", 1000);
  ASSERT_TRUE(s_->RunRound(60000).ok());
  const v1::Job job = *s_->GetJob(a_);
  ASSERT_TRUE(job.has_lease());
  EXPECT_NE(job.lease().epoch(), epoch_) << "its lease ends (the plan gives part of it to the peer) and a new "
                                            "one waits for the old process to exit";
  EXPECT_EQ(job.resizes(), 0);
  EXPECT_EQ(s_->counters().leases_resized, 0);
}

}  // namespace
}  // namespace synergy::daemon
