// The node protocol is level-triggered (docs/protocol.md): every heartbeat
// compares what should run on the node with what its report shows, orders
// repeat until a report confirms them, and a report that arrives after a
// later one changes nothing.
#include "daemon_state_fixture.h"

namespace synergy::daemon {
namespace {

class NodeReconcileTest : public DaemonStateTest {
 protected:
  // One plain job granted a lease on n1 (1 GPU) at 0.
  void StartOne() {
    s_ = Open();
    AddNode(*s_, "n1", 1, 3, 24, 0);
    id_ = *s_->Submit(Spec(1), "alice", 0);
    ASSERT_TRUE(s_->RunRound(0).ok());
    epoch_ = s_->GetJob(id_)->lease().epoch();
  }
  v1::HeartbeatResponse BeatNumbered(uint64_t sequence, int64_t now_ms, std::vector<v1::RunningProcess> running) {
    v1::HeartbeatRequest r;
    r.set_name("n1");
    r.set_incarnation(77);
    r.set_sequence(sequence);
    for (auto& p : running) *r.add_running() = p;
    auto reply = s_->Heartbeat(r, now_ms);
    EXPECT_TRUE(reply.ok()) << reply.status();
    return reply.ok() ? *reply : v1::HeartbeatResponse();
  }
  std::vector<std::string> Events() const {
    std::vector<std::string> out;
    const v1::Job job = *s_->GetJob(id_);
    for (const v1::JobEvent& e : job.events()) out.push_back(e.text());
    return out;
  }
  int EventsContaining(const std::string& text) const {
    int n = 0;
    for (const std::string& e : Events()) n += e.find(text) != std::string::npos;
    return n;
  }

  std::unique_ptr<DaemonState> s_;
  std::string id_;
  int64_t epoch_ = 0;
};

TEST_F(NodeReconcileTest, ALaunchOrderRepeatsUntilAReportShowsTheProcessAndTimeHeldCountsFromThatReport) {
  StartOne();
  ASSERT_EQ(Beat(*s_, "n1", 100).launch_size(), 1);
  EXPECT_EQ(EventsContaining("launched on n1"), 0) << "an order is not a launch";
  // The reply was lost: the next report does not show the process.
  const v1::HeartbeatResponse again = Beat(*s_, "n1", 200);
  ASSERT_EQ(again.launch_size(), 1);
  EXPECT_EQ(again.launch(0).epoch(), epoch_) << "the same lease, which the node starts at most once";
  EXPECT_EQ(s_->GetJob(id_)->attempts(), 1) << "a repeated order is not another attempt";
  EXPECT_EQ(s_->SnapshotForRound(1000).views[0].attained_service_s, 0.0);
  // The report shows it: launched, and held from now on.
  EXPECT_EQ(Beat(*s_, "n1", 1000, {Running(id_, epoch_)}).launch_size(), 0);
  EXPECT_EQ(EventsContaining("lease 1 launched on n1 (attempt 1)"), 1);
  EXPECT_EQ(s_->GetJob(id_)->first_launch_unix_ms(), 1000);
  EXPECT_EQ(Beat(*s_, "n1", 1100, {Running(id_, epoch_)}).launch_size(), 0) << "confirmed: not ordered again";
  EXPECT_DOUBLE_EQ(s_->SnapshotForRound(61000).views[0].attained_service_s, 60.0);
}

TEST_F(NodeReconcileTest, AProcessThatExitedBeforeAnyReportShowedItRunningCountsAsLaunched) {
  StartOne();
  ASSERT_EQ(Beat(*s_, "n1", 100).launch_size(), 1);
  const v1::HeartbeatResponse r = Beat(*s_, "n1", 200, {}, {Exit(id_, epoch_, 0)});
  EXPECT_EQ(r.launch_size(), 0);
  EXPECT_EQ(s_->GetJob(id_)->state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(EventsContaining("launched on n1"), 1);
}

TEST_F(NodeReconcileTest, ALeaseNoReportEverShowsEndsAfterItsOrdersAndTheJobWaitsForTheNextRound) {
  StartOne();
  int orders = 0;
  for (int64_t t = 100; t <= 100 + 20 * 100; t += 100) orders += Beat(*s_, "n1", t).launch_size();
  EXPECT_EQ(orders, DaemonState::kLaunchOrdersBeforeRequeue);
  const v1::Job job = *s_->GetJob(id_);
  EXPECT_FALSE(job.has_lease());
  EXPECT_NE(job.reason().find("did not report it started after 10 launch orders"), std::string::npos) << job.reason();
  EXPECT_EQ(s_->counters().leases_ended_by_cause[static_cast<size_t>(LeaseEndCause::kNotStarted)], 1);
  // The next round grants it again, under a new epoch.
  ASSERT_TRUE(s_->RunRound(60000).ok());
  ASSERT_TRUE(s_->GetJob(id_)->has_lease());
  EXPECT_GT(s_->GetJob(id_)->lease().epoch(), epoch_);
}

TEST_F(NodeReconcileTest, AStopOrderRepeatsUntilTheNodeNoLongerReportsTheProcess) {
  StartOne();
  Beat(*s_, "n1", 100);
  const v1::RunningProcess p = Running(id_, epoch_);
  Beat(*s_, "n1", 200, {p});
  ASSERT_TRUE(s_->Cancel(id_, 300).ok());
  EXPECT_EQ(Beat(*s_, "n1", 400, {p}).stop_size(), 1);
  EXPECT_EQ(Beat(*s_, "n1", 500, {p}).stop_size(), 1) << "the reply with the stop may have been lost";
  v1::ProcessExit stopped = Exit(id_, epoch_, -1);
  stopped.set_stopped_by_node(true);
  EXPECT_EQ(Beat(*s_, "n1", 600, {}, {stopped}).stop_size(), 0);
  EXPECT_EQ(Beat(*s_, "n1", 700).stop_size(), 0);
  EXPECT_EQ(s_->GetJob(id_)->state(), v1::JOB_STATE_CANCELLED);
}

TEST_F(NodeReconcileTest, ALaunchedProcessTheNodeNoLongerReportsIsGoneAndItsGpuFree) {
  StartOne();
  Beat(*s_, "n1", 100);
  Beat(*s_, "n1", 200, {Running(id_, epoch_)});
  // The node restarted without it: no process, no exit.
  Beat(*s_, "n1", 300);
  const v1::Job job = *s_->GetJob(id_);
  EXPECT_FALSE(job.has_lease());
  EXPECT_EQ(job.state(), v1::JOB_STATE_SUSPENDED) << job.reason();
  EXPECT_EQ(EventsContaining("gone from the node (no exit reported)"), 1);
  // Its GPU is free: the next round grants it again, and it launches.
  ASSERT_TRUE(s_->RunRound(60000).ok());
  ASSERT_TRUE(s_->GetJob(id_)->has_lease());
  EXPECT_EQ(Beat(*s_, "n1", 60100).launch_size(), 1);
}

TEST_F(NodeReconcileTest, AHeartbeatOvertakenByALaterOneChangesNothing) {
  StartOne();
  v1::RegisterNodeRequest r;
  r.set_name("n1");
  r.mutable_resources()->add_gpu_ids(0);
  for (int c = 0; c < 3; ++c) r.mutable_resources()->add_cpu_ids(c);
  r.mutable_resources()->set_mem_gb(24);
  r.set_incarnation(77);
  r.set_sequence(1);
  ASSERT_TRUE(s_->RegisterNode(r, 50).ok());
  ASSERT_EQ(BeatNumbered(2, 100, {}).launch_size(), 1);
  const v1::RunningProcess p = Running(id_, epoch_);
  BeatNumbered(4, 300, {p});
  ASSERT_EQ(EventsContaining("launched on n1"), 1);
  // Call 3 (sent before the node launched it; the node gave up on it)
  // arrives last: it must not take the process for gone nor order it again.
  const v1::HeartbeatResponse stale = BeatNumbered(3, 400, {});
  EXPECT_EQ(stale.launch_size(), 0);
  EXPECT_TRUE(s_->GetJob(id_)->has_lease());
  EXPECT_EQ(EventsContaining("gone from the node"), 0);
  EXPECT_EQ(BeatNumbered(5, 500, {p}).launch_size(), 0);
  // A registration overtaken likewise.
  r.set_sequence(3);
  ASSERT_TRUE(s_->RegisterNode(r, 550).ok());
  EXPECT_EQ(BeatNumbered(6, 600, {p}).launch_size(), 0);
  EXPECT_EQ(EventsContaining("re-adopted"), 0) << "the stale registration was taken";
  // Another synergy-node process of the same name must register first.
  v1::HeartbeatRequest other;
  other.set_name("n1");
  other.set_incarnation(78);
  other.set_sequence(1);
  EXPECT_TRUE(s_->Heartbeat(other, 700)->reregister());
  EXPECT_TRUE(s_->GetJob(id_)->has_lease());
}

TEST_F(NodeReconcileTest, AnExitReportedAgainIsAppliedOnce) {
  StartOne();
  Beat(*s_, "n1", 100);
  Beat(*s_, "n1", 200, {Running(id_, epoch_)});
  Beat(*s_, "n1", 300, {}, {Exit(id_, epoch_, 0)});
  // The reply was lost: the node sends the exit again.
  Beat(*s_, "n1", 400, {}, {Exit(id_, epoch_, 0)});
  EXPECT_EQ(s_->GetJob(id_)->state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(EventsContaining("exited"), 1);
}

// An agent that confirms checkpoints in a loop (876 a second in the
// attacker's probe) has each stored, and told as one event a second.
TEST_F(DaemonStateTest, CheckpointsConfirmedFasterThanOneASecondAreToldAsOneEventASecond) {
  auto [s, id, epoch] = OneLeasedJobUnderLas();
  Beat(*s, "n1", 10);
  Beat(*s, "n1", 20, {Running(id, epoch)});
  for (int i = 1; i <= 50; ++i) {
    v1::CheckpointDone done;
    done.set_job_id(id);
    done.set_epoch(epoch);
    done.set_iteration(i);
    done.set_path("/ckpt/" + std::to_string(i));
    ASSERT_TRUE(s->ConfirmCheckpoint(done, 1000 + i * 10).ok());  // 50 in half a second
  }
  const v1::Job job = *s->GetJob(id);
  EXPECT_EQ(job.checkpoint_iteration(), 50) << "every confirmation is stored";
  int told = 0;
  for (const v1::JobEvent& e : job.events()) told += e.text().rfind("checkpoint at iteration", 0) == 0;
  EXPECT_EQ(told, 1);
  s.reset();
  EXPECT_EQ(Open()->GetJob(id)->checkpoint_iteration(), 50);
}

}  // namespace
}  // namespace synergy::daemon
