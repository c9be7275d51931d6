// Hold, release, requeue and priority changes on DaemonState, driven by
// hand: what a round does with a held job, how a hold or requeue ends a
// lease, who may undo what, and that each change is stored.
#include "daemon/state/daemon_state.h"
#include "daemon/round/round_input.h"
#include "daemon_state_fixture.h"
#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

class JobControlsTest : public DaemonStateTest {
 protected:
  // The agent of `job` checkpoints at `iteration` and exits, as at a lease end.
  static void CheckpointAndExit(DaemonState& s, const std::string& job, int64_t epoch, int64_t iteration,
                                int64_t now_ms) {
    v1::CheckpointDone done;
    done.set_job_id(job);
    done.set_epoch(epoch);
    done.set_iteration(iteration);
    done.set_path("/tmp/" + job + ".ckpt");
    ASSERT_TRUE(s.ConfirmCheckpoint(done, now_ms).ok());
    Beat(s, "n1", now_ms + 10, {}, {Exit(job, epoch, 0)});
  }
};

TEST_F(JobControlsTest, AHeldJobGetsNoLeaseUntilReleased) {
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string id = *s->Submit(Spec(1, "res18", 100), "alice", 0);
  auto held = s->Hold(id, "alice", false, 10);
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_TRUE(held->held());
  EXPECT_EQ(held->held_by(), "alice");
  ASSERT_TRUE(s->RunRound(100).ok());
  auto job = *s->GetJob(id);
  EXPECT_FALSE(job.has_lease());
  EXPECT_NE(job.reason().find("held by alice"), std::string::npos) << job.reason();
  EXPECT_EQ(s->Hold(id, "alice", false, 110).status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(s->Release(id, "alice", false, 200).ok());
  EXPECT_EQ(s->Release(id, "alice", false, 210).status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(s->RunRound(300).ok());
  EXPECT_TRUE(s->GetJob(id)->has_lease());
}

TEST_F(JobControlsTest, HoldingARunningJobEndsItsLeaseAndItStaysOff) {
  auto [s, a, epoch] = OneLeasedJobUnderLas();
  Beat(*s, "n1", 10);
  ASSERT_TRUE(s->Hold(a, "admin", true, 20).ok());
  auto job = *s->GetJob(a);
  EXPECT_FALSE(job.has_lease());
  EXPECT_NE(job.reason().find("held by admin"), std::string::npos) << job.reason();
  v1::ProgressReport report;
  report.set_job_id(a);
  report.set_epoch(epoch);
  report.set_iterations_done(30);
  EXPECT_TRUE(s->ReportProgress(report, 30)->lease_ending());  // the agent checkpoints
  CheckpointAndExit(*s, a, epoch, 30, 40);
  EXPECT_EQ(s->GetJob(a)->state(), v1::JOB_STATE_SUSPENDED);
  ASSERT_TRUE(s->RunRound(60000).ok());
  EXPECT_FALSE(s->GetJob(a)->has_lease());
  // An admin's hold: its owner cannot release it, an admin can.
  EXPECT_EQ(s->Release(a, "alice", false, 60010).status().code(), absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(s->Release(a, "admin", true, 60020).ok());
  ASSERT_TRUE(s->RunRound(120000).ok());
  auto resumed = *s->GetJob(a);
  ASSERT_TRUE(resumed.has_lease());
  EXPECT_GT(resumed.lease().epoch(), epoch);
  EXPECT_EQ(resumed.checkpoint_iteration(), 30);
}

TEST_F(JobControlsTest, AHoldIsStoredAndOutlivesARestart) {
  std::string id;
  {
    auto s = Open();
    AddNode(*s, "n1", 1, 3, 24, 0);
    id = *s->Submit(Spec(1), "alice", 0);
    ASSERT_TRUE(s->Hold(id, "alice", false, 10).ok());
  }
  auto s = Open(1000);
  AddNode(*s, "n1", 1, 3, 24, 1000);
  auto job = *s->GetJob(id);
  EXPECT_TRUE(job.held());
  bool event = false;
  for (const v1::JobEvent& e : job.events()) event |= e.text() == "held by alice";
  EXPECT_TRUE(event);
  ASSERT_TRUE(s->RunRound(1100).ok());
  EXPECT_FALSE(s->GetJob(id)->has_lease());
}

TEST_F(JobControlsTest, RequeueEndsTheLeaseAndTheJobWaitsForARoundWithoutACrash) {
  auto [s, a, epoch] = OneLeasedJobUnderLas();
  Beat(*s, "n1", 10);
  auto requeued = s->Requeue(a, "alice", 20);
  ASSERT_TRUE(requeued.ok()) << requeued.status();
  EXPECT_FALSE(requeued->has_lease());
  CheckpointAndExit(*s, a, epoch, 12, 30);
  auto job = *s->GetJob(a);
  EXPECT_EQ(job.crashes(), 0);
  EXPECT_EQ(job.state(), v1::JOB_STATE_SUSPENDED);
  // Waiting, not held: the next round places it again.
  ASSERT_TRUE(s->RunRound(1000).ok());
  EXPECT_TRUE(s->GetJob(a)->has_lease());
  EXPECT_GT(s->GetJob(a)->lease().epoch(), epoch);
  // Only a job holding a lease is requeued.
  const std::string waiting = *s->Submit(Spec(1), "alice", 1100);
  EXPECT_EQ(s->Requeue(waiting, "alice", 1200).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s->Requeue("j-999999", "alice", 1200).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(JobControlsTest, AnOwnerLowersAPriorityAndOnlyAnAdminRaisesIt) {
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  v1::JobSpec spec = Spec(1);
  spec.set_priority(5);
  const std::string id = *s->Submit(spec, "alice", 0);
  EXPECT_EQ(s->SetPriority(id, 6, "alice", false, 10).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(s->GetJob(id)->spec().priority(), 5);
  ASSERT_TRUE(s->SetPriority(id, 2, "alice", false, 20).ok());
  EXPECT_EQ(s->GetJob(id)->spec().priority(), 2);
  ASSERT_TRUE(s->SetPriority(id, 900, "admin", true, 30).ok());
  s.reset();
  s = Open(100);
  auto job = *s->GetJob(id);
  EXPECT_EQ(job.spec().priority(), 900);
  EXPECT_EQ(job.events(job.events_size() - 1).text(), "priority 2 -> 900 by admin");
  ASSERT_TRUE(s->Cancel(id, 200).ok());
  EXPECT_EQ(s->SetPriority(id, 1, "admin", true, 300).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s->Hold(id, "admin", true, 300).status().code(), absl::StatusCode::kFailedPrecondition);
}

// Draining the only node (maintenance of a whole partition) ends its leases
// like draining one of several does, though the round has nowhere to plan.
TEST_F(JobControlsTest, DrainingTheOnlyNodeEndsItsLeasesAtTheNextRound) {
  auto [s, a, epoch] = OneLeasedJobUnderLas();
  Beat(*s, "n1", 10);
  ASSERT_TRUE(s->SetDrained("n1", true, 20, "maintenance").ok());
  ASSERT_TRUE(s->RunRound(1000).ok());
  auto job = *s->GetJob(a);
  EXPECT_FALSE(job.has_lease());
  EXPECT_NE(job.reason().find("no node takes part"), std::string::npos) << job.reason();
  CheckpointAndExit(*s, a, epoch, 5, 1100);
  ASSERT_TRUE(s->RunRound(2000).ok());
  EXPECT_EQ(s->GetJob(a)->state(), v1::JOB_STATE_SUSPENDED);
  ASSERT_TRUE(s->SetDrained("n1", false, 2100).ok());
  ASSERT_TRUE(s->RunRound(3000).ok());
  EXPECT_TRUE(s->GetJob(a)->has_lease());
}

// The first round after a restart runs before any node registers again: it
// must not end the leases those nodes are about to report (only drained or
// leaving nodes' leases end when no node takes part).
TEST_F(JobControlsTest, ARoundWithNoNodeBackYetAfterARestartKeepsTheLeases) {
  std::string id;
  int64_t epoch = 0;
  {
    auto s = Open();
    AddNode(*s, "n1", 1, 3, 24, 0);
    id = *s->Submit(Spec(1, "res18", 1000), "alice", 0);
    ASSERT_TRUE(s->RunRound(0).ok());
    epoch = s->GetJob(id)->lease().epoch();
    Beat(*s, "n1", 10);
  }
  auto s = Open(1000);
  ASSERT_TRUE(s->RunRound(1000).ok());
  auto job = *s->GetJob(id);
  ASSERT_TRUE(job.has_lease()) << job.reason();
  EXPECT_EQ(job.lease().epoch(), epoch);
}

// HoldJob can land while the core plans without the lock: the round must
// not grant the lease it planned for the job.
TEST_F(JobControlsTest, AJobHeldWhileTheRoundPlannedIsNotGranted) {
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string id = *s->Submit(Spec(1), "alice", 0);
  auto world = s->PrepareRound(10);
  ASSERT_TRUE(world.ok());
  const RoundDecisions decisions = s->PlanRound(*world);
  ASSERT_EQ(decisions.plan.assignments.size(), 1u);
  ASSERT_TRUE(s->Hold(id, "alice", false, 11).ok());
  ASSERT_TRUE(s->ApplyRound(*world, decisions, 12).ok());
  EXPECT_FALSE(s->GetJob(id)->has_lease());
}

// An admin holding a job the user held makes it an admin's hold.
TEST_F(JobControlsTest, AnAdminsHoldOverAUsersHoldIsTheAdmins) {
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string id = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->Hold(id, "alice", false, 10).ok());
  EXPECT_EQ(s->Hold(id, "alice", false, 11).status().code(), absl::StatusCode::kFailedPrecondition);
  auto upgraded = s->Hold(id, "admin", true, 12);
  ASSERT_TRUE(upgraded.ok()) << upgraded.status();
  EXPECT_TRUE(upgraded->held_by_admin());
  EXPECT_EQ(s->Release(id, "alice", false, 13).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(s->Hold(id, "admin", true, 14).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(JobControlsTest, ADrainKeepsItsReasonAndTimeUntilUndrained) {
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  ASSERT_TRUE(s->SetDrained("n1", true, 100, "fan failing").ok());
  // Draining again replaces the reason and keeps the time.
  ASSERT_TRUE(s->SetDrained("n1", true, 200, "fan replaced, burn-in").ok());
  s.reset();
  s = Open(300);
  AddNode(*s, "n1", 1, 3, 24, 300);
  v1::Node node = s->ListNodes(300)[0];
  EXPECT_TRUE(node.drained());
  EXPECT_EQ(node.drain_reason(), "fan replaced, burn-in");
  EXPECT_EQ(node.drained_unix_ms(), 100);
  ASSERT_TRUE(s->SetDrained("n1", false, 400).ok());
  node = s->ListNodes(400)[0];
  EXPECT_FALSE(node.drained());
  EXPECT_EQ(node.drain_reason(), "");
  EXPECT_EQ(node.drained_unix_ms(), 0);
}

}  // namespace
}  // namespace synergy::daemon
