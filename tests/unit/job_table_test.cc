// The job table (daemon/state/job_table.h): an undone change puts back every job
// it touched, its dirty marks and the id counter; flushes forget only what
// they stored; the queue keeps the round's order; in-flight submissions
// count toward a user's active jobs.
#include "daemon/state/job_table.h"

#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

v1::Job Queued(const std::string& id, const std::string& owner) {
  v1::Job job;
  job.set_id(id);
  job.set_owner(owner);
  job.set_state(v1::JOB_STATE_QUEUED);
  return job;
}

TEST(JobTable, AnUndoneChangePutsBackRecordsRuntimesMarksAndIds) {
  JobTable jobs;
  jobs.Load(Queued("j-000001", "ann"));
  jobs.RestoreNextId(2);
  jobs.Open();
  v1::Job& job = jobs.Edit("j-000001");
  EXPECT_TRUE(jobs.Move(job, JobMove::kGrant, "lease 1 granted", 10));
  jobs.EditRuntime("j-000001").finished = true;
  jobs.MarkDirty("j-000001");
  jobs.Undo();
  EXPECT_EQ(jobs.at("j-000001").state(), v1::JOB_STATE_QUEUED);
  EXPECT_FALSE(jobs.RuntimeOf("j-000001").finished);
  EXPECT_TRUE(jobs.dirty_marks().empty());
  EXPECT_EQ(jobs.next_id(), 2);
}

TEST(JobTable, AKeptChangeStaysAndItsProgressWaitsForTheStore) {
  JobTable jobs;
  jobs.Load(Queued("j-000001", "ann"));
  jobs.Open();
  jobs.Edit("j-000001").set_attained_service_ms(500);
  jobs.MarkDirty("j-000001");
  jobs.Keep();
  Batch batch;
  jobs.AddDirtyJobs(batch);
  ASSERT_EQ(batch.jobs.size(), 1u);
  EXPECT_EQ(batch.jobs[0].attained_service_ms(), 500);
  jobs.ForgetStored(batch);
  EXPECT_TRUE(jobs.dirty_marks().empty());
}

TEST(JobTable, AFlushForgetsOnlyJobsNotMarkedAgainSince) {
  JobTable jobs;
  jobs.Load(Queued("j-000001", "ann"));
  jobs.Load(Queued("j-000002", "ann"));
  jobs.MarkDirty("j-000001");
  jobs.MarkDirty("j-000002");
  const auto flushed = jobs.dirty_marks();
  jobs.MarkDirty("j-000002");  // progress again while the flush was stored
  jobs.ForgetFlushed(flushed);
  ASSERT_EQ(jobs.dirty_marks().size(), 1u);
  EXPECT_EQ(jobs.dirty_marks().begin()->first, "j-000002");
}

TEST(JobTable, AMoveItsStateDoesNotAllowChangesNothing) {
  JobTable jobs;
  v1::Job done = Queued("j-000001", "ann");
  done.set_state(v1::JOB_STATE_SUCCEEDED);
  jobs.Load(done);
  v1::Job& job = jobs.Edit("j-000001");
  EXPECT_FALSE(jobs.Move(job, JobMove::kGrant, "lease 9 granted", 10));
  EXPECT_EQ(jobs.at("j-000001").state(), v1::JOB_STATE_SUCCEEDED);
}

TEST(JobTable, TheQueueKeepsTheRoundsOrderThenLaterArrivals) {
  JobTable jobs;
  for (const char* id : {"j-000001", "j-000002", "j-000003"}) jobs.Load(Queued(id, "ann"));
  jobs.SetQueueOrder({"j-000002", "j-000001"});  // the round did not see j-000003
  jobs.Admit(Queued("j-000004", "ann"));
  EXPECT_EQ(jobs.queue_order(), (std::vector<std::string>{"j-000002", "j-000001", "j-000003", "j-000004"}));
}

TEST(JobTable, IdsAreNeverGivenTwiceAndSubmissionsInFlightCount) {
  JobTable jobs;
  jobs.RestoreNextId(7);
  jobs.Load(Queued("j-000001", "ann"));
  EXPECT_EQ(jobs.TakeId("ann"), "j-000007");
  EXPECT_EQ(jobs.TakeId("ann"), "j-000008");
  EXPECT_EQ(jobs.ActiveJobsOf("ann"), 3);
  jobs.EndSubmission("ann");  // the first was refused: its id stays used
  EXPECT_EQ(jobs.ActiveJobsOf("ann"), 2);
  EXPECT_EQ(jobs.next_id(), 9);
  EXPECT_EQ(jobs.ActiveJobsOf("bob"), 0);
}

}  // namespace
}  // namespace synergy::daemon
