// A store that refuses writes (a full disk, a read-only file): every change
// the daemon could not store is undone, nothing of it reaches a node or an
// agent, and after the episode and a restart no epoch is granted twice and
// no finished job runs again.
#include <map>
#include <set>

#include "daemon_state_fixture.h"
#include "faulty_store.h"
#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

class DaemonStoreFaultsTest : public DaemonStateTest {
 protected:
  std::unique_ptr<DaemonState> OpenFaulty(int64_t now_ms = 0) {
    auto real = SqliteStore::Open(config_.state_db);
    EXPECT_TRUE(real.ok()) << real.status();
    faults_ = std::make_shared<FaultyStore::Faults>();
    return OpenOn(std::make_unique<FaultyStore>(std::move(*real), faults_), now_ms);
  }

  // Every launch order a node was sent: no epoch may be ordered for two
  // jobs, and a job launches once per epoch (an order repeats, until a
  // report shows the process, under the same epoch).
  void Sent(const v1::HeartbeatResponse& r) {
    for (const v1::LaunchOrder& l : r.launch()) {
      auto [it, first] = epoch_job_.emplace(l.epoch(), l.job_id());
      EXPECT_EQ(it->second, l.job_id()) << "epoch " << l.epoch() << " ordered for two jobs";
      if (first) launches_[l.job_id()]++;
    }
  }

  // A heartbeat whose launch orders are checked (Sent).
  absl::StatusOr<v1::HeartbeatResponse> SentBeat(DaemonState& s, const std::string& node, int64_t now_ms,
                                                 std::vector<v1::RunningProcess> running = {},
                                                 std::vector<v1::ProcessExit> exits = {}) {
    auto reply = TryBeat(s, node, now_ms, std::move(running), std::move(exits));
    if (reply.ok()) Sent(*reply);
    return reply;
  }

  std::shared_ptr<FaultyStore::Faults> faults_;
  std::map<int64_t, std::string> epoch_job_;
  std::map<std::string, int> launches_;
};

// A launch between rounds the store refuses grants nothing and orders no
// launch; it is tried again after the debounce, and once the store takes
// writes the job is granted and launched once.
TEST_F(DaemonStoreFaultsTest, ALaunchBetweenRoundsWhoseCommitFailsIsTriedAgain) {
  config_.round_s = 60;
  auto s = OpenFaulty();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string a = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  const int64_t epoch = s->GetJob(a)->lease().epoch();
  ASSERT_EQ(SentBeat(*s, "n1", 100)->launch_size(), 1);
  ASSERT_TRUE(SentBeat(*s, "n1", 200, {Running(a, epoch)}).ok());
  const std::string b = *s->Submit(Spec(1), "alice", 300);
  ASSERT_TRUE(SentBeat(*s, "n1", 5000, {}, {Exit(a, epoch, 0)}).ok());
  ASSERT_TRUE(s->LaunchDue(6000));
  faults_->refuse_commits = true;
  EXPECT_EQ(s->LaunchBetweenRounds(6000).code(), absl::StatusCode::kUnavailable);
  EXPECT_FALSE(s->GetJob(b)->has_lease());
  EXPECT_FALSE(s->LaunchDue(6500)) << "tried again after the debounce, not at once";
  ASSERT_TRUE(s->LaunchDue(7000));
  faults_->refuse_commits = false;
  ASSERT_TRUE(SentBeat(*s, "n1", 6800).ok());  // nothing to launch yet
  ASSERT_TRUE(s->LaunchBetweenRounds(7000).ok());
  ASSERT_TRUE(s->GetJob(b)->has_lease());
  ASSERT_TRUE(SentBeat(*s, "n1", 7100).ok());
  EXPECT_EQ(launches_[b], 1);
  EXPECT_EQ(launches_[a], 1);
}

TEST_F(DaemonStoreFaultsTest, ARoundWhoseCommitFailsGrantsAndLaunchesNothing) {
  auto s = OpenFaulty();
  AddNode(*s, "n1", 2, 6, 24, 0);
  const std::string a = *s->Submit(Spec(1), "alice", 0);
  const std::string b = *s->Submit(Spec(1), "alice", 0);
  faults_->refuse_commits = true;
  EXPECT_EQ(s->RunRound(100).code(), absl::StatusCode::kUnavailable);
  for (const std::string& id : {a, b}) {
    EXPECT_FALSE(s->GetJob(id)->has_lease()) << id;
    EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_PENDING) << id;
  }
  // The node hears of no lease: a heartbeat with nothing to store is
  // answered, and it launches nothing.
  auto beat = SentBeat(*s, "n1", 200);
  ASSERT_TRUE(beat.ok()) << beat.status();
  EXPECT_EQ(beat->launch_size(), 0);
  EXPECT_EQ(s->counters().leases_granted, 0);
  EXPECT_GE(s->counters().store_failures, 1);
  // The store is back: the next round grants the epochs the failed one
  // would have, since nobody was told of them.
  faults_->refuse_commits = false;
  ASSERT_TRUE(s->RunRound(1100).ok());
  EXPECT_EQ(s->GetJob(a)->lease().epoch(), 1);
  EXPECT_EQ(s->GetJob(b)->lease().epoch(), 2);
  EXPECT_EQ(SentBeat(*s, "n1", 1200)->launch_size(), 2);
}

TEST_F(DaemonStoreFaultsTest, ARefusedHeartbeatChangesNothingAndItsExitCountsWhenResent) {
  auto s = OpenFaulty();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string id = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  ASSERT_EQ(SentBeat(*s, "n1", 10)->launch_size(), 1);
  const int64_t epoch = s->GetJob(id)->lease().epoch();
  faults_->refuse_commits = true;
  auto refused = SentBeat(*s, "n1", 20, {}, {Exit(id, epoch, 0)});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_RUNNING);
  EXPECT_TRUE(s->GetJob(id)->has_lease());
  // The node keeps an unacknowledged exit and sends it again.
  faults_->refuse_commits = false;
  ASSERT_TRUE(SentBeat(*s, "n1", 30, {}, {Exit(id, epoch, 0)}).ok());
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_SUCCEEDED);
}

TEST_F(DaemonStoreFaultsTest, CancelAndDrainThatCannotBeStoredSendNoStopAndChangeNothing) {
  auto s = OpenFaulty();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string id = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  const int64_t epoch = s->GetJob(id)->lease().epoch();
  ASSERT_EQ(SentBeat(*s, "n1", 10)->launch_size(), 1);
  faults_->refuse_commits = true;
  EXPECT_EQ(s->Cancel(id, 20).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(s->SetDrained("n1", true, 20).status().code(), absl::StatusCode::kUnavailable);
  faults_->refuse_commits = false;
  auto beat = SentBeat(*s, "n1", 30, {Running(id, epoch)});
  ASSERT_TRUE(beat.ok()) << beat.status();
  EXPECT_EQ(beat->stop_size(), 0) << "a cancel that was never stored stopped the job";
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_RUNNING);
  EXPECT_FALSE(s->ListNodes(30)[0].drained());
  EXPECT_EQ(s->counters().LeasesEnded(), 0);
  // Stored, the cancel stops it.
  ASSERT_TRUE(s->Cancel(id, 40).ok());
  EXPECT_EQ(SentBeat(*s, "n1", 50, {Running(id, epoch)})->stop_size(), 1);
}

TEST_F(DaemonStoreFaultsTest, RefusedSubmissionsAndCheckpointsLeaveNoTrace) {
  auto s = OpenFaulty();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string id = *s->Submit(Spec(1, "res18", 100), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  const int64_t epoch = s->GetJob(id)->lease().epoch();
  faults_->refuse_commits = true;
  EXPECT_EQ(s->Submit(Spec(1), "alice", 10).status().code(), absl::StatusCode::kUnavailable);
  v1::CheckpointDone done;
  done.set_job_id(id);
  done.set_epoch(epoch);
  done.set_iteration(40);
  done.set_path("/ckpt/40");
  EXPECT_EQ(s->ConfirmCheckpoint(done, 20).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(s->GetJob(id)->checkpoint_iteration(), 0);
  EXPECT_EQ(s->ListJobs(v1::ListJobsRequest{})->jobs.size(), 1u);
  faults_->refuse_commits = false;
  // The refused submission left no job; its id stays unused (submissions
  // take their ids before they wait for the store, where others may join
  // their commit), so the next one is j-000003.
  EXPECT_EQ(s->GetJob("j-000002").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(*s->Submit(Spec(1), "alice", 30), "j-000003");
  EXPECT_EQ(s->ActiveJobsOf("alice"), 2);
  ASSERT_TRUE(s->ConfirmCheckpoint(done, 40).ok());
  EXPECT_EQ(s->GetJob(id)->checkpoint_iteration(), 40);
}

// The store refuses writes for longer than heartbeat_timeout_s (3 s) while
// two jobs run and one exits: heartbeats that cannot be stored still prove
// the node alive, so no job is stopped or relaunched, and the exit the node
// keeps reporting is applied once the store takes writes again.
TEST_F(DaemonStoreFaultsTest, AStoreOutageLongerThanTheHeartbeatTimeoutLosesNoNodeAndStopsNoJob) {
  auto s = OpenFaulty();
  AddNode(*s, "n1", 2, 6, 24, 0);
  const std::string steady = *s->Submit(Spec(1), "alice", 0);
  const std::string brief = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  const int64_t steady_epoch = s->GetJob(steady)->lease().epoch();
  const int64_t brief_epoch = s->GetJob(brief)->lease().epoch();
  ASSERT_EQ(SentBeat(*s, "n1", 100)->launch_size(), 2);
  const std::vector<v1::RunningProcess> both = {Running(steady, steady_epoch), Running(brief, brief_epoch)};
  ASSERT_TRUE(SentBeat(*s, "n1", 200, both).ok());
  faults_->refuse_commits = true;
  int stops = 0;
  for (int64_t t = 1000; t <= 9000; t += 500) {
    (void)s->Tick(t);
    (void)s->RunRound(t);
    // brief exits at 3 s: the node reports its exit with every heartbeat
    // until one is answered.
    auto beat = t < 3000 ? SentBeat(*s, "n1", t + 10, both)
                         : SentBeat(*s, "n1", t + 10, {Running(steady, steady_epoch)}, {Exit(brief, brief_epoch, 0)});
    // One that changes nothing has nothing to store and is answered.
    if (t >= 3000) EXPECT_EQ(beat.status().code(), absl::StatusCode::kUnavailable) << "at " << t;
    if (beat.ok()) stops += beat->stop_size();
  }
  EXPECT_TRUE(s->ListNodes(9100)[0].alive()) << "a node that heartbeats through the outage is not lost";
  EXPECT_GT(s->store_refusing(), 0);
  faults_->refuse_commits = false;
  ASSERT_TRUE(s->Tick(9500).ok());
  auto beat = SentBeat(*s, "n1", 9510, {Running(steady, steady_epoch)}, {Exit(brief, brief_epoch, 0)});
  ASSERT_TRUE(beat.ok()) << beat.status();
  stops += beat->stop_size();
  EXPECT_EQ(s->store_refusing(), 0);
  EXPECT_EQ(stops, 0) << "a running job was stopped";
  EXPECT_EQ(s->GetJob(brief)->state(), v1::JOB_STATE_SUCCEEDED) << "the exit reported during the outage";
  EXPECT_EQ(s->GetJob(steady)->state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(s->GetJob(steady)->lease().epoch(), steady_epoch) << "relaunched";
  EXPECT_EQ(launches_[steady], 1);
  EXPECT_TRUE(s->ListNodes(9600)[0].alive());
}

TEST_F(DaemonStoreFaultsTest, AfterADiskFullEpisodeAndAKillNoEpochRunsTwiceAndNoFinishedJobAgain) {
  std::string done_id, running_id, waiting_id;
  int64_t running_epoch = 0;
  {
    auto s = OpenFaulty();
    AddNode(*s, "n1", 2, 6, 24, 0);
    done_id = *s->Submit(Spec(1), "alice", 0);
    running_id = *s->Submit(Spec(1), "alice", 0);
    ASSERT_TRUE(s->RunRound(0).ok());
    ASSERT_EQ(SentBeat(*s, "n1", 10)->launch_size(), 2);
    const int64_t done_epoch = s->GetJob(done_id)->lease().epoch();
    running_epoch = s->GetJob(running_id)->lease().epoch();
    ASSERT_TRUE(SentBeat(*s, "n1", 20, {Running(running_id, running_epoch)}, {Exit(done_id, done_epoch, 0)}).ok());
    ASSERT_EQ(s->GetJob(done_id)->state(), v1::JOB_STATE_SUCCEEDED);
    // The disk fills: a new job waits, rounds and ticks fail for a while.
    waiting_id = *s->Submit(Spec(1), "alice", 30);
    faults_->refuse_commits = true;
    for (int64_t t = 1000; t < 5000; t += 1000) {
      EXPECT_FALSE(s->RunRound(t).ok());
      // A tick with nothing to store (the round's service time was undone) writes nothing.
      EXPECT_TRUE(s->Tick(t + 1).ok());
      auto beat = SentBeat(*s, "n1", t + 2, {Running(running_id, running_epoch)});
      if (beat.ok()) {
        EXPECT_EQ(beat->launch_size(), 0);
      }
    }
    EXPECT_FALSE(s->GetJob(waiting_id)->has_lease());
  }  // kill -9: nothing but the store survives
  auto r = Open(6000);
  ASSERT_TRUE(r->RegisterNode([&] {
    v1::RegisterNodeRequest req;
    req.set_name("n1");
    req.set_address("127.0.0.1");
    for (int i = 0; i < 2; ++i) req.mutable_resources()->add_gpu_ids(i);
    for (int i = 0; i < 6; ++i) req.mutable_resources()->add_cpu_ids(i);
    req.mutable_resources()->set_mem_gb(24);
    *req.add_running() = Running(running_id, running_epoch);
    return req;
  }(), 6000).ok());
  EXPECT_EQ(r->GetJob(done_id)->state(), v1::JOB_STATE_SUCCEEDED);
  for (int64_t t = 7000; t < 10000; t += 1000) {
    ASSERT_TRUE(r->RunRound(t).ok());
    ASSERT_TRUE(SentBeat(*r, "n1", t + 10, {Running(running_id, running_epoch)}).ok());
  }
  EXPECT_EQ(launches_[done_id], 1) << "a finished job ran again";
  EXPECT_EQ(launches_[running_id], 1) << "the running job was relaunched";
  EXPECT_EQ(launches_[waiting_id], 1);
  EXPECT_GT(r->GetJob(waiting_id)->lease().epoch(), running_epoch);
}

}  // namespace
}  // namespace synergy::daemon
