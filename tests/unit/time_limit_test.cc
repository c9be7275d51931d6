// Time limits on DaemonState, driven by hand (issue 44, item 2): a job's
// run time is counted over its leases (wall clock holding a launched
// lease), and at its limit the lease ends and the job ends as TIMED_OUT;
// the cluster's default applies to a job without one, and a job asking for
// more than the maximum is refused.
#include "daemon/state/daemon_state.h"
#include "daemon_state_fixture.h"
#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

class TimeLimitTest : public DaemonStateTest {
 protected:
  // A plain 1-GPU job of `limit_s` granted at `now_ms` on n1, launched 1 s
  // later; its lease's epoch.
  int64_t Launch(DaemonState& s, const std::string& id, int64_t now_ms) {
    EXPECT_TRUE(s.RunRound(now_ms).ok());
    const int64_t epoch = s.GetJob(id)->lease().epoch();
    EXPECT_EQ(Beat(s, "n1", now_ms + 500).launch_size(), 1);
    Beat(s, "n1", now_ms + 1000, {Running(id, epoch)});
    return epoch;
  }
  // FIFO on n1 (1 GPU), nodes beaten only when a test needs to, and a job
  // with a time limit of a minute submitted at 0.
  std::unique_ptr<DaemonState> WithAMinuteJob(std::string& id) {
    config_.policy = "fifo";
    config_.heartbeat_timeout_s = 3600;
    auto s = Open();
    AddNode(*s, "n1", 1, 3, 24, 0);
    v1::JobSpec spec = Spec(1);
    spec.set_time_limit_s(60);
    id = *s->Submit(spec, "alice", 0);
    return s;
  }
};

TEST_F(TimeLimitTest, AJobEndsAsTimedOutWhenItHasRunForItsLimitAndItsLeaseIsStopped) {
  std::string id;
  auto s = WithAMinuteJob(id);
  const int64_t epoch = Launch(*s, id, 0);
  ASSERT_TRUE(s->Tick(50000, false).ok());
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_RUNNING);  // 49 s run
  ASSERT_TRUE(s->Tick(62000, false).ok());                   // 61 s run
  const v1::Job job = *s->GetJob(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_TIMED_OUT);
  EXPECT_EQ(job.reason(), "ran for its time limit of 1m");
  // Its process is stopped; its exit is the lease's end, and it stays
  // timed out (it is not retried or requeued).
  const v1::HeartbeatResponse reply = Beat(*s, "n1", 62500, {Running(id, epoch)});
  ASSERT_EQ(reply.stop_size(), 1);
  EXPECT_EQ(reply.stop(0).job_id(), id);
  Beat(*s, "n1", 63000, {}, {Exit(id, epoch, 143)});
  ASSERT_TRUE(s->RunRound(120000).ok());
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_TIMED_OUT);
  EXPECT_FALSE(s->GetJob(id)->has_lease());
  EXPECT_GE(s->GetJob(id)->run_ms(), 61000);
  // Stored: a restarted daemon finds it timed out.
  s.reset();
  EXPECT_EQ(Open(200000)->GetJob(id)->state(), v1::JOB_STATE_TIMED_OUT);
}

TEST_F(TimeLimitTest, RunTimeIsSummedOverLeasesAndTimeWaitingDoesNotCount) {
  std::string id;
  auto s = WithAMinuteJob(id);
  const int64_t first = Launch(*s, id, 0);
  // 40 s under the first lease, then requeued; its exit at 42 s.
  ASSERT_TRUE(s->Requeue(id, "admin", 41000).ok());
  Beat(*s, "n1", 42000, {}, {Exit(id, first, 143)});
  EXPECT_NEAR(s->GetJob(id)->run_ms(), 41000, 1000);
  // Waiting a long while costs nothing; 15 s into the second lease it runs
  // on, 21 s in it has used its minute.
  Launch(*s, id, 500000);
  ASSERT_TRUE(s->Tick(516000, false).ok());
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_RUNNING);
  ASSERT_TRUE(s->Tick(522000, false).ok());
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_TIMED_OUT);
}

TEST_F(TimeLimitTest, TheClusterDefaultAppliesAndItsMaximumIsEnforcedAtSubmission) {
  config_.default_time_limit_s = 3600;
  config_.max_time_limit_s = 86400;
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string defaulted = *s->Submit(Spec(1), "alice", 0);
  EXPECT_EQ(s->GetJob(defaulted)->spec().time_limit_s(), 3600);
  v1::JobSpec longer = Spec(1);
  longer.set_time_limit_s(2 * 86400);
  const auto refused = s->Submit(longer, "alice", 0);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("more than this cluster's max_time_limit (1d)"), std::string::npos)
      << refused.status();
  v1::JobSpec own = Spec(1);
  own.set_time_limit_s(7200);
  EXPECT_EQ(s->GetJob(*s->Submit(own, "alice", 0))->spec().time_limit_s(), 7200);
}

}  // namespace
}  // namespace synergy::daemon

namespace synergy::daemon {
namespace {

// Accounting (issue 44, item 6): what a job held, times how long, summed
// over its leases, and its tenant's GPU-seconds for /metrics.
TEST_F(TimeLimitTest, GpuCpuAndMemoryTimeHeldAreSummedOverLeasesAndPerTenant) {
  config_.policy = "fifo";
  config_.heartbeat_timeout_s = 3600;
  auto s = Open();
  AddNode(*s, "n1", 2, 8, 48, 0);
  v1::JobSpec spec = Spec(2);
  spec.set_tenant("vision");
  const std::string id = *s->Submit(spec, "alice", 0);
  const int64_t first = Launch(*s, id, 0);  // launched at 1 s
  ASSERT_TRUE(s->Requeue(id, "admin", 11000).ok());
  Beat(*s, "n1", 11500, {}, {Exit(id, first, 143)});
  EXPECT_NEAR(s->GetJob(id)->gpu_seconds(), 2 * 10, 1.5);  // accounted when the lease ended
  Launch(*s, id, 100000);  // launched at 101 s
  // A running lease's time is accounted with each progress flush.
  ASSERT_TRUE(s->FlushProgress(106000).ok());
  const v1::Job job = *s->GetJob(id);
  const v1::ClusterState cluster = s->Cluster();
  ASSERT_EQ(cluster.tenants_size(), 1);
  EXPECT_EQ(cluster.tenants(0).name(), "vision");
  EXPECT_EQ(cluster.tenants(0).allocated_gpus(), 2);
  // 10 s under the first lease, 5 s so far under the second; 2 GPUs, and
  // the whole node's 8 CPUs and 48 GB (the only job: proportional share).
  EXPECT_NEAR(job.gpu_seconds(), 2 * 15, 1.5);
  EXPECT_NEAR(job.cpu_seconds(), 8 * 15, 6);
  EXPECT_NEAR(job.mem_gb_seconds(), 48 * 15, 36);
  EXPECT_NEAR(cluster.tenants(0).gpu_seconds(), job.gpu_seconds(), 0.01);
}

}  // namespace
}  // namespace synergy::daemon
