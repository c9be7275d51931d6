#include "daemon/state/job_lifecycle.h"

#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

constexpr JobMove kMoves[] = {JobMove::kWait,    JobMove::kGrant,   JobMove::kLaunch,
                              JobMove::kProfile, JobMove::kRequeue, JobMove::kSuspend,
                              JobMove::kSucceed, JobMove::kFail,    JobMove::kCancel};

TEST(JobLifecycle, NothingLeavesATerminalState) {
  for (v1::JobState done : {v1::JOB_STATE_SUCCEEDED, v1::JOB_STATE_FAILED, v1::JOB_STATE_CANCELLED}) {
    for (JobMove move : kMoves) {
      v1::Job job;
      job.set_state(done);
      job.set_reason("done");
      EXPECT_FALSE(Move(job, move, "again", 5)) << MoveName(move);
      EXPECT_EQ(job.state(), done);
      EXPECT_EQ(job.reason(), "done");
      EXPECT_EQ(job.updated_unix_ms(), 0);
    }
  }
}

TEST(JobLifecycle, AJobRunsSuspendsAndFinishesByNamedMoves) {
  v1::Job job;
  job.set_state(v1::JOB_STATE_PENDING);
  EXPECT_FALSE(Move(job, JobMove::kSuspend, "nothing runs yet", 1));
  EXPECT_FALSE(Move(job, JobMove::kLaunch, "no lease", 1));
  ASSERT_TRUE(Move(job, JobMove::kWait, "waiting for resources", 2));
  EXPECT_EQ(job.state(), v1::JOB_STATE_QUEUED);
  ASSERT_TRUE(Move(job, JobMove::kGrant, "lease 1 granted", 3));
  ASSERT_TRUE(Move(job, JobMove::kLaunch, "running under lease 1", 4));
  EXPECT_FALSE(Move(job, JobMove::kWait, "a running job does not wait", 5));
  EXPECT_FALSE(Move(job, JobMove::kProfile, "nor profile", 5));
  ASSERT_TRUE(Move(job, JobMove::kSuspend, "checkpointed", 6));
  EXPECT_EQ(job.state(), v1::JOB_STATE_SUSPENDED);
  ASSERT_TRUE(Move(job, JobMove::kGrant, "lease 2 granted", 7));
  EXPECT_EQ(job.finished_unix_ms(), 0);
  ASSERT_TRUE(Move(job, JobMove::kSucceed, "finished its iterations", 8));
  EXPECT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(job.reason(), "finished its iterations");
  EXPECT_EQ(job.updated_unix_ms(), 8);
  EXPECT_EQ(job.finished_unix_ms(), 8);
}

TEST(JobLifecycle, EveryLiveStateCanBeCancelledFailedOrRequeued) {
  for (v1::JobState live : {v1::JOB_STATE_PENDING, v1::JOB_STATE_PROFILING, v1::JOB_STATE_QUEUED,
                            v1::JOB_STATE_RUNNING, v1::JOB_STATE_SUSPENDED}) {
    for (JobMove move : {JobMove::kCancel, JobMove::kFail, JobMove::kRequeue, JobMove::kGrant}) {
      EXPECT_TRUE(MoveAllowed(move, live)) << MoveName(move) << " from " << live;
    }
  }
}

}  // namespace
}  // namespace synergy::daemon
