// synergyd's launches between rounds (synergy/between_rounds.h): when a
// lease's processes are gone, a waiting job is granted what they held
// once launch_debounce_ms has passed, not at the next round; running
// leases stay as they are; off, only rounds launch.
#include "absl/strings/str_format.h"
#include "daemon_state_fixture.h"

namespace synergy::daemon {
namespace {

class DaemonLaunchesTest : public DaemonStateTest {
 protected:
  // Rounds of a minute on one node of two GPUs; three one-GPU plain jobs
  // submitted at 0; the round at 0 grants two, whose processes the node
  // reports running at 1 s.
  struct TwoRunOneWaits {
    std::unique_ptr<DaemonState> s;
    std::vector<std::string> jobs;
    std::vector<int64_t> epochs;
  };
  TwoRunOneWaits Start() {
    config_.round_s = 60;
    TwoRunOneWaits t;
    t.s = Open();
    AddNode(*t.s, "n1", 2, 6, 24, 0);
    for (int i = 0; i < 3; ++i) t.jobs.push_back(*t.s->Submit(Spec(1), "alice", 0));
    EXPECT_TRUE(t.s->RunRound(0).ok());
    for (int i = 0; i < 2; ++i) t.epochs.push_back(t.s->GetJob(t.jobs[i])->lease().epoch());
    EXPECT_FALSE(t.s->GetJob(t.jobs[2])->has_lease());
    EXPECT_EQ(Beat(*t.s, "n1", 500).launch_size(), 2);
    Beat(*t.s, "n1", 1000, {Running(t.jobs[0], t.epochs[0]), Running(t.jobs[1], t.epochs[1])});
    return t;
  }
};

TEST_F(DaemonLaunchesTest, AWaitingJobStartsWhenALeaseEndsNotAtTheNextRound) {
  TwoRunOneWaits t = Start();
  DaemonState& s = *t.s;
  EXPECT_FALSE(s.LaunchDue(1000)) << "the round at 0 placed everything it could";
  // The first job exits 10 s in: its GPU is free.
  Beat(s, "n1", 10000, {Running(t.jobs[1], t.epochs[1])}, {Exit(t.jobs[0], t.epochs[0], 0)});
  EXPECT_FALSE(s.LaunchDue(10999)) << "events within the debounce are coalesced";
  ASSERT_TRUE(s.LaunchDue(11000));
  const v1::Lease running_before = s.GetJob(t.jobs[1])->lease();
  ASSERT_TRUE(s.LaunchBetweenRounds(11000).ok());
  EXPECT_FALSE(s.LaunchDue(11000)) << "tried";

  const v1::Job third = *s.GetJob(t.jobs[2]);
  ASSERT_TRUE(third.has_lease()) << third.reason();
  EXPECT_EQ(third.lease().granted_unix_ms(), 11000) << "within 2 s of the exit, not at the round at 60 s";
  ASSERT_EQ(third.lease().slices_size(), 1);
  EXPECT_EQ(third.lease().slices(0).gpu_ids_size(), 1);
  bool said = false;
  for (const v1::JobEvent& e : third.events()) said = said || e.text().find(", between rounds") != std::string::npos;
  EXPECT_TRUE(said);
  // The running lease is as it was: same epoch, GPUs and CPUs.
  const v1::Lease running_after = s.GetJob(t.jobs[1])->lease();
  EXPECT_EQ(running_after.SerializeAsString(), running_before.SerializeAsString());
  // The node hears of it in its next heartbeat, on the GPU the exit freed.
  const v1::HeartbeatResponse r = Beat(s, "n1", 11500, {Running(t.jobs[1], t.epochs[1])});
  ASSERT_EQ(r.launch_size(), 1);
  EXPECT_EQ(r.launch(0).job_id(), t.jobs[2]);
  EXPECT_NE(third.lease().slices(0).gpu_ids(0), running_after.slices(0).gpu_ids(0));
  EXPECT_EQ(s.counters().launches_between_rounds, 1);
}

TEST_F(DaemonLaunchesTest, OffOnlyRoundsLaunch) {
  config_.launch_between_rounds = false;
  TwoRunOneWaits t = Start();
  DaemonState& s = *t.s;
  Beat(s, "n1", 10000, {Running(t.jobs[1], t.epochs[1])}, {Exit(t.jobs[0], t.epochs[0], 0)});
  EXPECT_FALSE(s.LaunchDue(20000));
  EXPECT_FALSE(s.GetJob(t.jobs[2])->has_lease());
  ASSERT_TRUE(s.RunRound(60000).ok());
  EXPECT_TRUE(s.GetJob(t.jobs[2])->has_lease()) << "the next round places it";
}

// A waiting job larger than what is free is not planned for: the try
// makes no plan and grants nothing; the round still places it later.
TEST_F(DaemonLaunchesTest, ATryWithNoWaitingJobThatFitsGrantsNothing) {
  config_.round_s = 60;
  auto s = Open();
  AddNode(*s, "n1", 2, 6, 24, 0);
  const std::string one = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  const std::string two = *s->Submit(Spec(2), "alice", 5000);
  ASSERT_TRUE(s->LaunchDue(6000)) << "an arrival is an event";
  const RoundWorld world = *s->PrepareLaunch(6000);
  const RoundDecisions d = s->PlanLaunches(world);
  EXPECT_FALSE(d.planned) << "one GPU free, the waiting job asks for two";
  ASSERT_TRUE(s->ApplyLaunches(world, d, 6000).ok());
  EXPECT_FALSE(s->GetJob(two)->has_lease());
  EXPECT_EQ(s->GetJob(two)->state(), v1::JOB_STATE_QUEUED) << "queued, with why";
  EXPECT_TRUE(s->GetJob(one)->has_lease());
  EXPECT_EQ(s->counters().launch_tries, 1);
  EXPECT_EQ(s->counters().launches_between_rounds, 0);
}

// A cancelled job's lease ends; the waiting job takes its GPU between
// rounds, and its launch order waits until the node reports the old
// process gone (no two jobs on one GPU).
TEST_F(DaemonLaunchesTest, ACancelFreesTheGpuAndTheLaunchWaitsForTheExit) {
  TwoRunOneWaits t = Start();
  DaemonState& s = *t.s;
  ASSERT_TRUE(s.Cancel(t.jobs[0], 3000).ok());
  ASSERT_TRUE(s.LaunchDue(4000));
  ASSERT_TRUE(s.LaunchBetweenRounds(4000).ok());
  ASSERT_TRUE(s.GetJob(t.jobs[2])->has_lease());
  const std::vector<v1::RunningProcess> both = {Running(t.jobs[0], t.epochs[0]), Running(t.jobs[1], t.epochs[1])};
  EXPECT_EQ(Beat(s, "n1", 4500, both).launch_size(), 0) << "the cancelled process still holds the GPU";
  const v1::HeartbeatResponse r =
      Beat(s, "n1", 5000, {Running(t.jobs[1], t.epochs[1])}, {Exit(t.jobs[0], t.epochs[0], 143)});
  ASSERT_EQ(r.launch_size(), 1);
  EXPECT_EQ(r.launch(0).job_id(), t.jobs[2]);
}

// A waiting job read says how many wait before it in the policy's order
// and when the next round is due; the head of the queue waits for
// resources.
TEST_F(DaemonLaunchesTest, AWaitingJobSaysWhatItWaitsForAndUntilWhen) {
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  std::vector<std::string> jobs;
  for (int i = 0; i < 3; ++i) jobs.push_back(*s->Submit(Spec(1), "alice", 0));
  ASSERT_TRUE(s->RunRound(0).ok());
  s->SetNextRoundDue(300000);
  const v1::Job head = *s->GetJob(jobs[1]);
  EXPECT_EQ(head.reason(), "waiting for resources");
  EXPECT_EQ(head.jobs_ahead(), 0);
  EXPECT_EQ(head.next_round_unix_ms(), 300000);
  const v1::Job last = *s->GetJob(jobs[2]);
  EXPECT_EQ(last.reason(), "waiting: 1 job ahead in fifo order");
  EXPECT_EQ(last.jobs_ahead(), 1);
  const v1::Job running = *s->GetJob(jobs[0]);
  EXPECT_EQ(running.next_round_unix_ms(), 0) << "only waiting jobs count down";
  v1::ListJobsRequest list;
  const DaemonState::JobPage page = *s->ListJobs(list);
  ASSERT_EQ(page.jobs.size(), 3u);
  EXPECT_EQ(page.jobs[2].reason(), "waiting: 1 job ahead in fifo order");
}

// LAS gives a newcomer the GPU of a job that has held it for a minute:
// the preempted job's events say who took its place.
TEST_F(DaemonLaunchesTest, APreemptedJobHearsWhoTookItsPlace) {
  auto [s, a, epoch_a] = OneLeasedJobUnderLas();
  ASSERT_EQ(Beat(*s, "n1", 10).launch_size(), 1);
  Beat(*s, "n1", 15, {Running(a, epoch_a)});
  const std::string b = *s->Submit(Spec(1, "res18", 1000), "alice", 20);
  ASSERT_TRUE(s->RunRound(60000).ok());
  ASSERT_TRUE(s->GetJob(b)->has_lease());
  bool said = false;
  const v1::Job preempted = *s->GetJob(a);
  for (const v1::JobEvent& e : preempted.events()) {
    said = said || e.text() == absl::StrFormat("lease %d ended: the round gave its GPUs to %s (las order)", epoch_a, b);
  }
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace synergy::daemon
