// DaemonState driven by hand (no threads, no sockets): durability, leases
// and their epochs, exits and retries, lost nodes, and the same plan as the
// simulator for the same state.
#include "daemon/state/daemon_state.h"

#include <filesystem>

#include "daemon/round/round_input.h"
#include "daemon/state/postgres_store.h"
#include "daemon_state_fixture.h"
#include "test_postgres.h"
#include "gtest/gtest.h"
#include "sim/simulator.h"
#include "test_support.h"

namespace synergy::daemon {
namespace {

TEST_F(DaemonStateTest, AcceptedJobsSurviveAReopen) {
  std::string id;
  {
    auto s = Open();
    auto submitted = s->Submit(Spec(1), "alice", 1000);
    ASSERT_TRUE(submitted.ok()) << submitted.status();
    id = *submitted;
    EXPECT_EQ(id, "j-000001");
  }
  auto s = Open();
  auto job = s->GetJob(id);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->state(), v1::JOB_STATE_PENDING);
  ASSERT_GE(job->events_size(), 1);
  EXPECT_NE(job->events(0).text().find("submitted"), std::string::npos);
  auto next = s->Submit(Spec(1), "alice", 2000);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, "j-000002");  // the id counter is durable too
}

// The same daemon on PostgreSQL: what a restart finds is what was
// acknowledged (the job, its lease and the node's launch), and the id and
// epoch counters go on from where they were.
TEST_F(DaemonStateTest, ARunningJobSurvivesARestartOnPostgres) {
  SYNERGY_TEST_POSTGRES(server);
  const std::string dsn = server->NewDatabase("daemon_restart_" + std::to_string(getpid()));
  ASSERT_FALSE(dsn.empty());
  auto on_postgres = [&](int64_t now_ms) {
    auto store = PostgresStore::Open(dsn);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? OpenOn(std::move(*store), now_ms) : nullptr;
  };
  std::string id;
  int64_t epoch = 0;
  {
    auto s = on_postgres(0);
    ASSERT_NE(s, nullptr);
    AddNode(*s, "n1", 1, 3, 24, 0);
    id = *s->Submit(Spec(1), "alice", 0);
    ASSERT_TRUE(s->RunRound(0).ok());
    epoch = s->GetJob(id)->lease().epoch();
    ASSERT_EQ(Beat(*s, "n1", 10).launch_size(), 1);
    Beat(*s, "n1", 15, {Running(id, epoch)});  // launched
  }
  auto s = on_postgres(1000);
  ASSERT_NE(s, nullptr);
  auto job = s->GetJob(id);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(job->lease().epoch(), epoch);
  // The node comes back with the process: re-adopted, not launched again.
  AddNode(*s, "n1", 1, 3, 24, 1100);
  EXPECT_EQ(Beat(*s, "n1", 1200, {Running(id, epoch)}).launch_size(), 0);
  EXPECT_EQ(*s->Submit(Spec(1), "alice", 1300), "j-000002");
}

TEST_F(DaemonStateTest, RefusedSubmissionsStoreNothing) {
  auto s = Open();
  AddNode(*s, "n1", 2, 6, 24, 0);
  EXPECT_EQ(s->Submit(Spec(0), "alice", 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s->Submit(Spec(3), "alice", 0).status().message().find("spec.gpus: 3 is more than the cluster's 2 GPUs"),
            std::string::npos);
  v1::JobSpec no_command = Spec(1);
  no_command.clear_command();
  EXPECT_NE(s->Submit(no_command, "alice", 0).status().message().find("spec.command"), std::string::npos);
  EXPECT_TRUE(s->ListJobs(v1::ListJobsRequest{})->jobs.empty());
  s.reset();
  {
    auto store = SqliteStore::Open(config_.state_db);
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_TRUE((*store)->LoadJobs()->empty());
  }
  s = Open();
  AddNode(*s, "n1", 2, 6, 24, 0);
  EXPECT_EQ(*s->Submit(Spec(1), "alice", 0), "j-000001");
}

TEST_F(DaemonStateTest, RoundGrantsLeaseNodeLaunchesJobSucceeds) {
  auto s = Open();
  AddNode(*s, "n1", 2, 6, 24, 0);
  const std::string id = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(100).ok());
  auto job = *s->GetJob(id);
  ASSERT_TRUE(job.has_lease());
  EXPECT_EQ(job.state(), v1::JOB_STATE_RUNNING);
  ASSERT_EQ(job.lease().slices_size(), 1);
  EXPECT_EQ(job.lease().slices(0).node(), "n1");
  EXPECT_EQ(job.lease().slices(0).gpu_ids_size(), 1);
  EXPECT_EQ(job.lease().slices(0).cpu_ids_size(), 3);  // proportional: 6 cores / 2 GPUs
  const int64_t epoch = job.lease().epoch();

  v1::HeartbeatResponse r = Beat(*s, "n1", 200);
  ASSERT_EQ(r.launch_size(), 1);
  EXPECT_EQ(r.launch(0).job_id(), id);
  EXPECT_EQ(r.launch(0).epoch(), epoch);
  EXPECT_EQ(r.launch(0).env().at("SYNERGY_JOB_ID"), id);
  EXPECT_EQ(r.launch(0).env().at("SYNERGY_LEASE_EPOCH"), std::to_string(epoch));
  EXPECT_EQ(r.launch(0).env().at("SYNERGY_WORLD_SIZE"), "1");
  // Sent once.
  v1::RunningProcess p;
  p.set_job_id(id);
  p.set_epoch(epoch);
  EXPECT_EQ(Beat(*s, "n1", 300, {p}).launch_size(), 0);
  Beat(*s, "n1", 400, {}, {Exit(id, epoch, 0)});
  job = *s->GetJob(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_FALSE(job.has_lease());
  EXPECT_EQ(job.attempts(), 1);
}

TEST_F(DaemonStateTest, StaleEpochsAreRefused) {
  auto s = Open();
  AddNode(*s, "n1", 2, 6, 24, 0);
  const std::string id = *s->Submit(Spec(1, "res18", 100), "alice", 0);
  ASSERT_TRUE(s->RunRound(100).ok());
  const int64_t epoch = s->GetJob(id)->lease().epoch();
  v1::AgentHello hello;
  hello.set_job_id(id);
  hello.set_epoch(epoch + 1);
  EXPECT_EQ(s->RegisterAgent(hello, 200).status().code(), absl::StatusCode::kFailedPrecondition);
  hello.set_epoch(epoch);
  auto welcome = s->RegisterAgent(hello, 200);
  ASSERT_TRUE(welcome.ok()) << welcome.status();
  EXPECT_EQ(welcome->total_iterations(), 100);
  v1::ProgressReport report;
  report.set_job_id(id);
  report.set_epoch(epoch - 1);
  report.set_iterations_done(10);
  EXPECT_EQ(s->ReportProgress(report, 300).status().code(), absl::StatusCode::kFailedPrecondition);
  report.set_epoch(epoch);
  auto reply = s->ReportProgress(report, 300);
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(reply->lease_ending());
  EXPECT_EQ(s->GetJob(id)->iterations_done(), 10);
  v1::CheckpointDone done;
  done.set_job_id(id);
  done.set_epoch(epoch + 5);
  done.set_iteration(10);
  EXPECT_EQ(s->ConfirmCheckpoint(done, 400).code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(DaemonStateTest, MeasuredProfilesAreStoredUnderACurrentLease) {
  auto s = Open();
  AddNode(*s, "n1", 2, 6, 24, 0);
  const std::string id = *s->Submit(Spec(1, "res18", 100), "alice", 0);
  ASSERT_TRUE(s->RunRound(100).ok());
  v1::MeasuredProfile profile;
  profile.set_job_id(id);
  profile.set_epoch(s->GetJob(id)->lease().epoch());
  profile.set_seconds(12.5);
  v1::ProfilePoint* p = profile.add_points();
  p->set_cpus(3);
  p->set_mem_gb(62.5);
  p->set_throughput(10);
  v1::MeasuredProfile bad = profile;
  bad.mutable_points(0)->set_cpus(0);
  EXPECT_NE(s->SubmitProfile(bad, 200).message().find("points[0]"), std::string::npos);
  v1::MeasuredProfile stale = profile;
  stale.set_epoch(profile.epoch() + 1);
  EXPECT_EQ(s->SubmitProfile(stale, 200).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(s->SubmitProfile(profile, 200).ok());
  s.reset();
  auto reopened = Open();
  auto job = *reopened->GetJob(id);
  ASSERT_EQ(job.measured_profile().points_size(), 1);
  EXPECT_EQ(job.measured_profile().points(0).throughput(), 10);
}

TEST_F(DaemonStateTest, JobsAreScheduledWithTheirMeasuredProfile) {
  auto s = Open();
  AddNode(*s, "n1", 2, 12, 250, 0);  // share: 6 cores, 125 GB per GPU
  v1::JobSpec spec = Spec(1, "", 1000);
  spec.set_uses_agent(true);
  const std::string id = *s->Submit(spec, "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  // Before: no model, so the proportional share.
  EXPECT_EQ(s->SnapshotForRound(10).views[0].ideal_speedup, 1.0);
  v1::MeasuredProfile profile;
  profile.set_job_id(id);
  profile.set_epoch(s->GetJob(id)->lease().epoch());
  for (double cpus : {3.0, 6.0, 9.0, 12.0}) {
    for (double mem : {62.5, 125.0, 250.0}) {
      v1::ProfilePoint* p = profile.add_points();
      p->set_cpus(cpus);
      p->set_mem_gb(mem);
      p->set_throughput(std::min(cpus, 9.0) * (mem >= 125 ? 1.0 : 0.5));  // knee at 9 cores, 125 GB
    }
  }
  ASSERT_TRUE(s->SubmitProfile(profile, 20).ok());
  RoundSnapshot snap = s->SnapshotForRound(30);
  ASSERT_EQ(snap.views.size(), 1u);
  const JobView& v = snap.views[0];
  ASSERT_NE(v.profile, nullptr);
  EXPECT_DOUBLE_EQ(v.ideal_speedup, 9.0 / 6.0);  // 9 cores vs the 6-core share, both at 125 GB
  EXPECT_EQ(v.ideal_demand.cpus, 9);
  EXPECT_EQ(v.ideal_demand.mem_gb, 125);
  EXPECT_DOUBLE_EQ(v.iteration_time_s, 1.0 / 6.0);
  // The next round gives it its ideal demand.
  ASSERT_TRUE(s->RunRound(60000).ok());
  auto job = *s->GetJob(id);
  ASSERT_TRUE(job.has_lease());
  EXPECT_EQ(job.lease().slices(0).cpu_ids_size(), 9);
}

// Two jobs that held the same rounds tie, whatever their launch latencies
// (LAS then puts the earlier arrival first, as the simulator does).
TEST(ServiceInTenthsOfARound, LaunchLatenciesDoNotBreakTies) {
  constexpr int64_t kRound = 3000;
  EXPECT_EQ(ServiceInTenthsOfARound(4 * kRound - 23, kRound), ServiceInTenthsOfARound(4 * kRound + 41, kRound));
  EXPECT_EQ(ServiceInTenthsOfARound(4 * kRound - 23, kRound), 4 * kRound);
  EXPECT_EQ(ServiceInTenthsOfARound(4 * kRound + 140, kRound), 4 * kRound);
  EXPECT_EQ(ServiceInTenthsOfARound(4 * kRound + 160, kRound), 4 * kRound + 300);  // a tenth is a tenth
  EXPECT_EQ(ServiceInTenthsOfARound(60'000, 300'000), 60'000);  // a round cut short counts
  EXPECT_EQ(ServiceInTenthsOfARound(0, kRound), 0);
  EXPECT_EQ(ServiceInTenthsOfARound(1234, 0), 1234);  // no rounds to count in
}

TEST_F(DaemonStateTest, AProfileGivenInTheSpecSchedulesTheJobUntilItMeasuresItsOwn) {
  auto s = Open();
  AddNode(*s, "n1", 2, 12, 250, 0);  // share: 6 cores, 125 GB per GPU
  v1::JobSpec spec = Spec(1, "", 1000);
  spec.set_uses_agent(true);
  for (double cpus : {3.0, 6.0, 9.0, 12.0}) {
    for (double mem : {62.5, 125.0, 250.0}) {
      v1::ProfilePoint* p = spec.add_profile_points();
      p->set_cpus(cpus);
      p->set_mem_gb(mem);
      p->set_throughput(std::min(cpus, 9.0) * (mem >= 125 ? 1.0 : 0.5));  // knee at 9 cores, 125 GB
    }
  }
  const std::string id = *s->Submit(spec, "alice", 0);
  // The first round already plans from it: no profiling lease, its knee.
  ASSERT_TRUE(s->RunRound(0).ok());
  v1::Job job = *s->GetJob(id);
  ASSERT_TRUE(job.has_lease());
  EXPECT_FALSE(job.lease().profiling());
  EXPECT_EQ(job.lease().slices(0).cpu_ids_size(), 9);
  EXPECT_FALSE(job.has_measured_profile());
  // What the job measures later wins: here it reads flat, so the share.
  v1::MeasuredProfile flat;
  flat.set_job_id(id);
  flat.set_epoch(job.lease().epoch());
  for (double cpus : {3.0, 6.0, 9.0, 12.0}) {
    v1::ProfilePoint* p = flat.add_points();
    p->set_cpus(cpus);
    p->set_mem_gb(125);
    p->set_throughput(5);
  }
  ASSERT_TRUE(s->SubmitProfile(flat, 20).ok());
  const RoundSnapshot snap = s->SnapshotForRound(30);  // the views live in it
  const JobView& v = snap.views[0];
  EXPECT_DOUBLE_EQ(v.ideal_speedup, 1.0);
  EXPECT_LE(v.ideal_demand.cpus, 6);
}

TEST_F(DaemonStateTest, ABadGivenProfileIsRefusedAndNothingIsStored) {
  auto s = Open();
  AddNode(*s, "n1", 2, 12, 250, 0);
  v1::JobSpec spec = Spec(1, "", 1000);
  spec.set_uses_agent(true);
  v1::ProfilePoint* p = spec.add_profile_points();
  p->set_cpus(2);
  p->set_mem_gb(8);
  p->set_throughput(-1);
  auto refused = s->Submit(spec, "alice", 0);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("spec.profile_points[0].throughput"), std::string::npos)
      << refused.status();
  p->set_throughput(4);
  spec.set_profile(true);
  refused = s->Submit(spec, "alice", 0);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("spec.profile_points: given with profile: true"), std::string::npos)
      << refused.status();
  spec.set_profile(false);
  spec.set_uses_agent(false);
  spec.set_iterations(0);
  refused = s->Submit(spec, "alice", 0);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("spec.profile_points: needs uses_agent"), std::string::npos)
      << refused.status();
  EXPECT_TRUE(s->ListJobs(v1::ListJobsRequest{})->jobs.empty());
}

// The core plans from an empty cluster each round; a job must not be moved
// to an identical node that has just become free (here: undrained), which
// would cost a checkpoint and a restart for nothing.
TEST_F(DaemonStateTest, AJobStaysOnItsNodeWhenAnIdenticalOneFreesUp) {
  auto s = Open();
  AddNode(*s, "n1", 2, 6, 24, 0);
  AddNode(*s, "n2", 2, 6, 24, 0);
  ASSERT_TRUE(s->SetDrained("n1", true, 0).ok());
  const std::string id = *s->Submit(Spec(2), "alice", 0);
  ASSERT_TRUE(s->RunRound(1000).ok());
  auto job = *s->GetJob(id);
  ASSERT_TRUE(job.has_lease());
  ASSERT_EQ(job.lease().slices(0).node(), "n2");
  const int64_t epoch = job.lease().epoch();
  v1::RunningProcess running;
  running.set_job_id(id);
  running.set_epoch(epoch);
  running.set_pid(4242);
  ASSERT_EQ(Beat(*s, "n2", 1100).launch_size(), 1);
  Beat(*s, "n2", 1150, {running});
  Beat(*s, "n1", 1150);
  ASSERT_TRUE(s->SetDrained("n1", false, 1200).ok());
  // n1 is server 0 again, where an empty-cluster plan puts the job first.
  ASSERT_TRUE(s->RunRound(2000).ok());
  job = *s->GetJob(id);
  ASSERT_TRUE(job.has_lease());
  EXPECT_EQ(job.lease().epoch(), epoch) << "the lease was replaced";
  EXPECT_EQ(job.lease().slices(0).node(), "n2");
  // A second job takes the other node.
  const std::string other = *s->Submit(Spec(2), "alice", 2100);
  ASSERT_TRUE(s->RunRound(3000).ok());
  EXPECT_EQ(s->GetJob(id)->lease().epoch(), epoch);
  ASSERT_TRUE(s->GetJob(other)->has_lease());
  EXPECT_EQ(s->GetJob(other)->lease().slices(0).node(), "n1");
}

TEST(LeaseHolds, MatchesSlicesInAnyOrderOncePerSlice) {
  // A 2-node lease: rank 0 on n2, rank 1 on n1 (the plan lists n1 first).
  v1::Lease lease;
  for (const std::string node : {"n2", "n1"}) {
    v1::LeaseSlice* s = lease.add_slices();
    s->set_node(node);
    s->add_gpu_ids(0);
    for (int c = 0; c < 3; ++c) s->add_cpu_ids(c);
    s->set_mem_gb(10);
  }
  const std::vector<std::string> names = {"n1", "n2"};
  Assignment plan;
  plan.slices = {Slice{0, Resources{1, 3, 10, 0}}, Slice{1, Resources{1, 3, 10, 0}}};
  EXPECT_TRUE(LeaseHolds(lease, plan, names));
  plan.slices[1].resources.mem_gb = 12;
  EXPECT_FALSE(LeaseHolds(lease, plan, names));
  plan.slices[1] = Slice{0, Resources{1, 3, 10, 0}};  // both on n1: n2's slice is not planned
  EXPECT_FALSE(LeaseHolds(lease, plan, names));
  plan.slices.pop_back();
  EXPECT_FALSE(LeaseHolds(lease, plan, names));
}

TEST_F(DaemonStateTest, ProfilingLeaseHoldsAWholeNodeThenTheProfileSchedules) {
  auto s = Open();
  AddNode(*s, "n1", 2, 12, 250, 0);
  AddNode(*s, "n2", 2, 12, 250, 0);
  const std::string p = *s->Submit(ProfiledSpec(1, 1000), "alice", 0);
  const std::string other = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  auto job = *s->GetJob(p);
  EXPECT_EQ(job.state(), v1::JOB_STATE_PROFILING);
  ASSERT_TRUE(job.lease().profiling());
  const std::string node = job.lease().slices(0).node();
  EXPECT_EQ(job.lease().slices(0).cpu_ids_size(), 12);  // all of the node's CPUs
  EXPECT_EQ(job.lease().slices(0).mem_gb(), 250);
  // The other job is placed on the other node only.
  ASSERT_TRUE(s->GetJob(other)->has_lease());
  EXPECT_NE(s->GetJob(other)->lease().slices(0).node(), node);
  v1::HeartbeatResponse r = Beat(*s, node, 10);
  ASSERT_EQ(r.launch_size(), 1);
  EXPECT_EQ(r.launch(0).env().at("SYNERGY_PROFILING"), "1");
  // The profile ends the profiling lease; the agent checkpoints and exits.
  v1::MeasuredProfile profile;
  profile.set_job_id(p);
  profile.set_epoch(job.lease().epoch());
  for (double cpus : {3.0, 6.0, 12.0}) {
    for (double mem : {125.0, 250.0}) {
      v1::ProfilePoint* pt = profile.add_points();
      pt->set_cpus(cpus);
      pt->set_mem_gb(mem);
      pt->set_throughput(cpus);
    }
  }
  ASSERT_TRUE(s->SubmitProfile(profile, 20).ok());
  v1::ProgressReport report;
  report.set_job_id(p);
  report.set_epoch(job.lease().epoch());
  EXPECT_TRUE(s->ReportProgress(report, 30)->lease_ending());
  Beat(*s, node, 40, {}, {Exit(p, job.lease().epoch(), 0)});
  EXPECT_EQ(s->GetJob(p)->state(), v1::JOB_STATE_SUSPENDED);
  ASSERT_TRUE(s->RunRound(1000).ok());
  job = *s->GetJob(p);
  ASSERT_TRUE(job.has_lease());
  EXPECT_FALSE(job.lease().profiling());
  EXPECT_EQ(job.lease().slices(0).cpu_ids_size(), 12);  // its ideal: the most CPUs it measured
}

TEST_F(DaemonStateTest, ANodeSitsOutTheRoundUntilItsProfilingLeaseHasEnded) {
  auto s = Open();
  AddNode(*s, "n1", 2, 4, 8, 0);
  const std::string a = *s->Submit(ProfiledSpec(1, 1000), "alice", 0);
  const std::string b = *s->Submit(ProfiledSpec(1, 1000), "alice", 0);
  auto profile_and_end = [&](const std::string& id, int64_t t, bool exit) {
    const v1::Job job = *s->GetJob(id);
    EXPECT_TRUE(job.lease().profiling()) << id;
    v1::MeasuredProfile profile;
    profile.set_job_id(id);
    profile.set_epoch(job.lease().epoch());
    for (double cpus : {1.0, 2.0, 4.0}) {
      v1::ProfilePoint* pt = profile.add_points();
      pt->set_cpus(cpus);
      pt->set_mem_gb(8);
      pt->set_throughput(cpus);
    }
    Beat(*s, "n1", t);
    ASSERT_TRUE(s->SubmitProfile(profile, t).ok());
    if (exit) Beat(*s, "n1", t + 10, {}, {Exit(id, job.lease().epoch(), 0)});
  };
  ASSERT_TRUE(s->RunRound(0).ok());
  profile_and_end(a, 100, true);
  ASSERT_TRUE(s->RunRound(1000).ok());  // the node is free again: b profiles on it
  const int64_t b_epoch = s->GetJob(b)->lease().epoch();
  profile_and_end(b, 1100, false);      // b's profiling lease is ending, its process still running
  ASSERT_TRUE(s->RunRound(2000).ok());
  EXPECT_FALSE(s->GetJob(a)->has_lease()) << "a plan without b would give a the whole node, then take it back";
  Beat(*s, "n1", 2100, {}, {Exit(b, b_epoch, 0)});
  ASSERT_TRUE(s->RunRound(3000).ok());
  ASSERT_TRUE(s->GetJob(a)->has_lease());
  ASSERT_TRUE(s->GetJob(b)->has_lease());
  EXPECT_EQ(s->GetJob(a)->lease().slices(0).cpu_ids_size(), 2);  // planned together: half the node each
  EXPECT_EQ(s->GetJob(b)->lease().slices(0).cpu_ids_size(), 2);
}

TEST_F(DaemonStateTest, AJobThatFindsNoFreeNodeToProfileOnRunsUnprofiledAfterTheWait) {
  config_.profile_wait_s = 60;
  auto s = Open();
  AddNode(*s, "n1", 4, 8, 64, 0);
  const std::string busy = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  ASSERT_TRUE(s->GetJob(busy)->has_lease());
  const std::string p = *s->Submit(ProfiledSpec(1, 1000), "alice", 1000);
  // n1 has room, but not a whole free node: the job waits for one...
  for (int64_t t : {2000, 60000}) {
    Beat(*s, "n1", t);
    ASSERT_TRUE(s->RunRound(t).ok());
    auto job = *s->GetJob(p);
    EXPECT_FALSE(job.has_lease()) << "at " << t;
    EXPECT_EQ(job.state(), v1::JOB_STATE_QUEUED);
    EXPECT_EQ(job.reason(), "waiting for a free node to profile on");
  }
  // ...for profile_wait_s after its submission, then it is scheduled as it is.
  Beat(*s, "n1", 61000);
  ASSERT_TRUE(s->RunRound(61000).ok());
  auto job = *s->GetJob(p);
  ASSERT_TRUE(job.has_lease());
  EXPECT_FALSE(job.lease().profiling());
  EXPECT_EQ(job.lease().slices(0).node(), "n1");
  bool told = false;
  for (const auto& e : job.events()) told |= e.text().find("no node was free to profile on for 60 s") != std::string::npos;
  EXPECT_TRUE(told);
  // It still wants its profile: once it holds no lease and a node is free,
  // a round profiles it there.
  AddNode(*s, "n2", 4, 8, 64, 61000);
  Beat(*s, "n2", 64000);
  ASSERT_TRUE(s->Tick(64100).ok());  // n1 silent for 3.1 s: lost, both jobs requeued
  ASSERT_FALSE(s->GetJob(p)->has_lease());
  ASSERT_TRUE(s->RunRound(64200).ok());
  job = *s->GetJob(p);
  ASSERT_TRUE(job.has_lease());
  EXPECT_TRUE(job.lease().profiling());
  EXPECT_EQ(job.lease().slices(0).node(), "n2");
  EXPECT_EQ(job.lease().slices(0).cpu_ids_size(), 8);
}

TEST_F(DaemonStateTest, AJobWiderThanEveryNodeIsScheduledUnprofiled) {
  auto s = Open();
  AddNode(*s, "n1", 1, 4, 32, 0);
  AddNode(*s, "n2", 1, 4, 32, 0);
  const std::string p = *s->Submit(ProfiledSpec(2, 1000), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  auto job = *s->GetJob(p);
  ASSERT_TRUE(job.has_lease());
  EXPECT_FALSE(job.lease().profiling());
  EXPECT_EQ(job.lease().slices_size(), 2);
}

TEST_F(DaemonStateTest, CrashesAreRetriedThenTheJobFails) {
  auto s = Open();
  AddNode(*s, "n1", 2, 6, 24, 0);
  const std::string id = *s->Submit(Spec(1), "alice", 0);
  for (int attempt = 1; attempt <= 2; ++attempt) {
    ASSERT_TRUE(s->RunRound(attempt * 1000).ok());
    const int64_t epoch = s->GetJob(id)->lease().epoch();
    ASSERT_EQ(Beat(*s, "n1", attempt * 1000 + 100).launch_size(), 1);
    Beat(*s, "n1", attempt * 1000 + 200, {}, {Exit(id, epoch, 3)});
  }
  auto job = *s->GetJob(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_NE(job.reason().find("crashed 2 times; last on n1: exited with status 3"), std::string::npos)
      << job.reason();
}

TEST_F(DaemonStateTest, RetriesCountCrashesNotLaunches) {
  auto s = Open();
  AddNode(*s, "n1", 2, 6, 24, 0);
  AddNode(*s, "n2", 2, 6, 24, 0);
  v1::JobSpec spec = Spec(2);
  spec.set_max_retries(1);
  const std::string id = *s->Submit(spec, "alice", 0);
  ASSERT_TRUE(s->RunRound(1000).ok());
  const std::string first = s->GetJob(id)->lease().slices(0).node();
  const int64_t epoch = s->GetJob(id)->lease().epoch();
  ASSERT_EQ(Beat(*s, first, 1100).launch_size(), 1);
  // Moved off its node by a drain: a second launch, no crash.
  ASSERT_TRUE(s->SetDrained(first, true, 1200).ok());
  ASSERT_TRUE(s->RunRound(2000).ok());
  v1::ProcessExit stopped = Exit(id, epoch, -1);
  stopped.set_signal(15);
  stopped.set_stopped_by_node(true);
  Beat(*s, first, 2100, {}, {stopped});
  ASSERT_TRUE(s->RunRound(3000).ok());
  auto job = *s->GetJob(id);
  ASSERT_TRUE(job.has_lease());
  const std::string second = job.lease().slices(0).node();
  ASSERT_NE(second, first);
  ASSERT_EQ(Beat(*s, second, 3100).launch_size(), 1);
  Beat(*s, second, 3200, {}, {Exit(id, job.lease().epoch(), 3)});
  job = *s->GetJob(id);
  EXPECT_EQ(job.attempts(), 2);
  EXPECT_EQ(job.crashes(), 1);
  EXPECT_EQ(job.state(), v1::JOB_STATE_QUEUED) << job.reason();  // its one retry is left
  EXPECT_NE(job.reason().find("retry 1 of 1"), std::string::npos) << job.reason();
}

TEST_F(DaemonStateTest, ALostNodesJobsAreRequeued) {
  auto s = Open();
  AddNode(*s, "n1", 2, 6, 24, 0);
  const std::string id = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(100).ok());
  Beat(*s, "n1", 200);
  ASSERT_TRUE(s->Tick(2000).ok());
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_RUNNING);
  ASSERT_TRUE(s->Tick(3300).ok());  // 3.1 s after the last heartbeat
  auto job = *s->GetJob(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_QUEUED);
  EXPECT_FALSE(job.has_lease());
  EXPECT_NE(job.reason().find("node n1 lost"), std::string::npos);
  EXPECT_TRUE(Beat(*s, "n1", 3400).reregister());
}

TEST_F(DaemonStateTest, AHigherPriorityClassPreemptsAtTheNextRound) {
  auto s = Open();
  AddNode(*s, "n1", 2, 6, 48, 0);
  const std::string low = *s->Submit(Spec(1, "res18", 1000), "alice", 0);
  const std::string later = *s->Submit(Spec(1, "res18", 1000), "alice", 5);
  ASSERT_TRUE(s->RunRound(0).ok());
  ASSERT_TRUE(s->GetJob(low)->has_lease());
  ASSERT_TRUE(s->GetJob(later)->has_lease());
  v1::JobSpec urgent = Spec(1, "res18", 1000);
  urgent.set_priority(10);
  const std::string high = *s->Submit(urgent, "alice", 10);
  ASSERT_TRUE(s->RunRound(1000).ok());
  // The urgent job takes a GPU; of the two class-0 jobs FIFO keeps the
  // earlier one.
  ASSERT_TRUE(s->GetJob(high)->has_lease());
  EXPECT_TRUE(s->GetJob(low)->has_lease());
  EXPECT_FALSE(s->GetJob(later)->has_lease());
  v1::JobSpec bad = Spec(1);
  bad.set_priority(1001);
  auto refused = s->Submit(bad, "alice", 30);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("spec.priority: 1001 is not a priority class (0 to 1000)"),
            std::string::npos)
      << refused.status();
}

TEST_F(DaemonStateTest, TheStarvationGuardCountsFromTheLastRunAndSurvivesARestart) {
  constexpr int64_t kHour = 3600 * 1000;
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  AddNode(*s, "n2", 1, 3, 24, 0);
  const std::string holds = *s->Submit(Spec(1), "alice", 0);  // FIFO keeps it on its GPU throughout
  const std::string waits = *s->Submit(Spec(1), "alice", 1);
  ASSERT_TRUE(s->RunRound(0).ok());
  ASSERT_TRUE(s->GetJob(holds)->has_lease());
  ASSERT_TRUE(s->GetJob(waits)->has_lease());
  const std::string lost_node = s->GetJob(waits)->lease().slices(0).node();
  const std::string kept_node = lost_node == "n1" ? "n2" : "n1";
  ASSERT_EQ(Beat(*s, "n1", 10).launch_size(), 1);
  ASSERT_EQ(Beat(*s, "n2", 10).launch_size(), 1);
  // At 500 h `waits` loses its node: it ran until then.
  Beat(*s, kept_node, 500 * kHour - 1000);
  ASSERT_TRUE(s->Tick(500 * kHour).ok());
  auto job = *s->GetJob(waits);
  ASSERT_FALSE(job.has_lease());
  EXPECT_EQ(job.last_lease_end_unix_ms(), 500 * kHour);
  auto bumped = [&](const std::string& id) { return s->GetJob(id)->starvation_priority() == 1; };
  // 1000 h after its arrival, but not after its last run: no bump; nor for
  // the job that has run all along.
  ASSERT_TRUE(s->RunRound(1000 * kHour + 10).ok());
  EXPECT_FALSE(bumped(waits));
  EXPECT_FALSE(bumped(holds));
  ASSERT_TRUE(s->RunRound(1500 * kHour + 10).ok());
  EXPECT_TRUE(bumped(waits));
  EXPECT_FALSE(bumped(holds));
  job = *s->GetJob(waits);
  bool told = false;
  for (const auto& e : job.events()) told |= e.text() == "waited over 1000 hours: first in its class from now on";
  EXPECT_TRUE(told);
  // For good, across a restart.
  s.reset();
  auto reopened = Open(1500 * kHour + 20);
  EXPECT_EQ(reopened->GetJob(waits)->starvation_priority(), 1);
  EXPECT_EQ(reopened->GetJob(waits)->last_lease_end_unix_ms(), 500 * kHour);
  AddNode(*reopened, "n1", 1, 3, 24, 1500 * kHour + 30);
  bool seen = false;
  for (const JobView& v : reopened->SnapshotForRound(1500 * kHour + 40).views) {
    if (v.id != NumericJobId(waits)) continue;
    seen = true;
    EXPECT_EQ(v.priority, 1);
  }
  EXPECT_TRUE(seen);
}

TEST_F(DaemonStateTest, AfterARestartAJobDoesNotRunTwiceWhileItsOldNodeIsSilent) {
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string id = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  ASSERT_EQ(Beat(*s, "n1", 10).launch_size(), 1);
  s.reset();
  // Back up at 1 s; n1 has heartbeat_timeout_s (3 s) to report the process.
  auto r = Open(1000);
  AddNode(*r, "n2", 1, 3, 24, 1000);
  ASSERT_TRUE(r->RunRound(1100).ok());  // n1 is not back: the plan moves the job to n2
  ASSERT_TRUE(r->GetJob(id)->has_lease());
  EXPECT_EQ(r->GetJob(id)->lease().slices(0).node(), "n2");
  // The process may still run on n1: n2 does not start a second one...
  EXPECT_EQ(Beat(*r, "n2", 1200).launch_size(), 0);
  ASSERT_TRUE(r->Tick(3900).ok());
  EXPECT_EQ(Beat(*r, "n2", 3950).launch_size(), 0);
  // ...until n1 has not come back in time.
  ASSERT_TRUE(r->Tick(4100).ok());
  EXPECT_EQ(Beat(*r, "n2", 4150).launch_size(), 1);
}

TEST_F(DaemonStateTest, ALeaseMovesOnlyAfterItsProcessExits) {
  // LAS: the running job accumulates service; a new one of the same size
  // takes its place, and the new launch waits for the old process.
  auto [s, a, epoch_a] = OneLeasedJobUnderLas();
  v1::RunningProcess pa;
  pa.set_job_id(a);
  pa.set_epoch(epoch_a);
  ASSERT_EQ(Beat(*s, "n1", 10).launch_size(), 1);
  Beat(*s, "n1", 15, {pa});  // launched
  const std::string b = *s->Submit(Spec(1, "res18", 1000), "alice", 20);
  ASSERT_TRUE(s->RunRound(60000).ok());  // a has held its GPU for a minute, b none
  EXPECT_FALSE(s->GetJob(a)->has_lease());
  ASSERT_TRUE(s->GetJob(b)->has_lease());
  // a's agent learns its lease ends; b waits while a still runs.
  v1::ProgressReport report;
  report.set_job_id(a);
  report.set_epoch(epoch_a);
  report.set_iterations_done(40);
  EXPECT_TRUE(s->ReportProgress(report, 60010)->lease_ending());
  EXPECT_EQ(Beat(*s, "n1", 60020, {pa}).launch_size(), 0);
  v1::CheckpointDone done;
  done.set_job_id(a);
  done.set_epoch(epoch_a);
  done.set_iteration(40);
  done.set_path("/tmp/a.ckpt");
  ASSERT_TRUE(s->ConfirmCheckpoint(done, 60030).ok());
  v1::HeartbeatResponse r = Beat(*s, "n1", 60040, {}, {Exit(a, epoch_a, 0)});
  ASSERT_EQ(r.launch_size(), 1);
  EXPECT_EQ(r.launch(0).job_id(), b);
  auto ja = *s->GetJob(a);
  EXPECT_EQ(ja.state(), v1::JOB_STATE_SUSPENDED);
  EXPECT_EQ(ja.checkpoint_iteration(), 40);
}

TEST_F(DaemonStateTest, AJobThatFinishesAsItsLeaseEndsKeepsNoTraceOfTheLeaseThatNeverRan) {
  // a's lease ends (b takes its GPU); a second node lets the next round
  // grant a another lease, which waits for a's process to exit. a's agent
  // then reports its last iteration: the new lease is withdrawn, and
  // `logs` points at the lease that ran, not at one that never did.
  auto [s, a, epoch_a] = OneLeasedJobUnderLas();
  Beat(*s, "n1", 10);
  Beat(*s, "n1", 15, {Running(a, epoch_a)});  // launched
  *s->Submit(Spec(1, "res18", 1000), "alice", 20);
  ASSERT_TRUE(s->RunRound(60000).ok());
  ASSERT_FALSE(s->GetJob(a)->has_lease());
  AddNode(*s, "n2", 1, 3, 24, 60010);
  ASSERT_TRUE(s->RunRound(60020).ok());
  ASSERT_TRUE(s->GetJob(a)->has_lease());
  const int64_t unlaunched = s->GetJob(a)->lease().epoch();
  ASSERT_NE(unlaunched, epoch_a);
  EXPECT_EQ(Beat(*s, "n2", 60030).launch_size(), 0);  // waits for a's exit on n1
  v1::CheckpointDone done;
  done.set_job_id(a);
  done.set_epoch(epoch_a);
  done.set_iteration(1000);
  done.set_finished(true);
  done.set_path("/tmp/a.ckpt");
  ASSERT_TRUE(s->ConfirmCheckpoint(done, 60040).ok());
  EXPECT_EQ(s->GetJob(a)->state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_FALSE(s->GetJob(a)->has_lease());
  auto source = s->LogSourceOf(a, 0, 0);
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ(source->epoch, epoch_a);
  EXPECT_EQ(source->node, "n1");
  EXPECT_FALSE(s->LogSourceOf(a, unlaunched, 0).ok());
  EXPECT_EQ(Beat(*s, "n2", 60050).launch_size(), 0);
}

TEST_F(DaemonStateTest, APlainJobThatExitsZeroAsItsLeaseEndsIsDoneEvenWithANewerLease) {
  // A plain job whose process exits 0 on its own just as the round ended
  // its lease and granted it another must not run a second time.
  auto [s, a, epoch] = PlainJobEndedByAHigherClass();
  ASSERT_FALSE(s->GetJob(a)->has_lease());
  AddNode(*s, "n2", 1, 3, 24, 60010);
  ASSERT_TRUE(s->RunRound(60020).ok());
  ASSERT_TRUE(s->GetJob(a)->has_lease());
  Beat(*s, "n1", 60030, {}, {Exit(a, epoch, 0)});  // exited on its own, not stopped
  EXPECT_EQ(s->GetJob(a)->state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_FALSE(s->GetJob(a)->has_lease());
  EXPECT_EQ(Beat(*s, "n2", 60040).launch_size(), 0);
  EXPECT_EQ(s->LogSourceOf(a, 0, 0)->epoch, epoch);
}

TEST_F(DaemonStateTest, PlainProcessesAreStoppedAtOnceAtLeaseEnd) {
  auto [s, a, epoch] = PlainJobEndedByAHigherClass();
  const v1::RunningProcess p = Running(a, epoch);
  v1::HeartbeatResponse r = Beat(*s, "n1", 60010, {p});
  ASSERT_EQ(r.stop_size(), 1);  // no agent to tell: SIGTERM now
  EXPECT_EQ(r.stop(0).job_id(), a);
  EXPECT_EQ(r.stop(0).epoch(), epoch);
  EXPECT_EQ(r.stop(0).grace_ms(), 2000);
  EXPECT_EQ(r.launch_size(), 0);  // the next job waits for the GPU
  v1::ProcessExit e = Exit(a, epoch, -1);
  e.set_stopped_by_node(true);
  r = Beat(*s, "n1", 60100, {}, {e});
  EXPECT_EQ(r.launch_size(), 1);
  EXPECT_EQ(s->GetJob(a)->state(), v1::JOB_STATE_SUSPENDED);
}

TEST_F(DaemonStateTest, AgentsGetTheGraceBeforeTheStop) {
  auto [s, a, epoch] = OneLeasedJobUnderLas();
  Beat(*s, "n1", 10);
  const v1::RunningProcess p = Running(a, epoch);
  Beat(*s, "n1", 15, {p});  // launched
  *s->Submit(Spec(1, "res18", 1000), "alice", 20);
  ASSERT_TRUE(s->RunRound(60000).ok());
  EXPECT_EQ(Beat(*s, "n1", 60010, {p}).stop_size(), 0);
  ASSERT_TRUE(s->Tick(61000).ok());
  EXPECT_EQ(Beat(*s, "n1", 61010, {p}).stop_size(), 0);
  ASSERT_TRUE(s->Tick(62100).ok());  // lease_grace_s (2 s) after the lease ended
  EXPECT_EQ(Beat(*s, "n1", 62110, {p}).stop_size(), 1);
}

TEST_F(DaemonStateTest, MultiNodeJobsGetRanksAndTheMaster) {
  auto s = Open();
  AddNode(*s, "n1", 2, 6, 24, 0);
  AddNode(*s, "n2", 2, 6, 24, 0);
  const std::string id = *s->Submit(Spec(4), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  auto job = *s->GetJob(id);
  ASSERT_EQ(job.lease().slices_size(), 2);
  std::map<std::string, v1::LaunchOrder> orders;
  for (const std::string node : {"n1", "n2"}) {
    v1::HeartbeatResponse r = Beat(*s, node, 10);
    ASSERT_EQ(r.launch_size(), 1) << node;
    orders[node] = r.launch(0);
  }
  EXPECT_EQ(orders["n1"].env().at("SYNERGY_RANK"), "0");
  EXPECT_EQ(orders["n2"].env().at("SYNERGY_RANK"), "1");
  for (auto& [node, o] : orders) {
    EXPECT_EQ(o.env().at("SYNERGY_WORLD_SIZE"), "2");
    EXPECT_EQ(o.env().at("SYNERGY_MASTER_ADDR"), "127.0.0.1");
    EXPECT_EQ(o.env().at("SYNERGY_MASTER_PORT"), orders["n1"].env().at("SYNERGY_MASTER_PORT"));
    EXPECT_EQ(o.gpu_ids_size(), 2);
  }
  // One rank exiting is not the job's end; both are.
  Beat(*s, "n1", 20, {}, {Exit(id, job.lease().epoch(), 0)});
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_RUNNING);
  Beat(*s, "n2", 30, {}, {Exit(id, job.lease().epoch(), 0)});
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_SUCCEEDED);
}

TEST_F(DaemonStateTest, RankZerosStopIterationReachesTheOtherRanks) {
  config_.policy = "las";
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  AddNode(*s, "n2", 1, 3, 24, 0);
  const std::string a = *s->Submit(Spec(2, "res18", 1000), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  const int64_t epoch = s->GetJob(a)->lease().epoch();
  Beat(*s, "n1", 10);
  Beat(*s, "n2", 10);
  Beat(*s, "n1", 15, {Running(a, epoch)});  // launched
  Beat(*s, "n2", 15, {Running(a, epoch)});
  *s->Submit(Spec(2, "res18", 1000), "alice", 20);
  ASSERT_TRUE(s->RunRound(60000).ok());  // a's lease ends: b has had no service
  v1::ProgressReport r1;
  r1.set_job_id(a);
  r1.set_epoch(epoch);
  r1.set_rank(1);
  r1.set_iterations_done(500);
  auto reply = s->ReportProgress(r1, 60010);
  ASSERT_TRUE(reply.ok());
  EXPECT_TRUE(reply->lease_ending());
  EXPECT_EQ(reply->stop_at_iteration(), 0);  // rank 0 has not chosen yet
  v1::ProgressReport r0 = r1;
  r0.set_rank(0);
  r0.set_iterations_done(498);
  r0.set_stop_at_iteration(520);
  EXPECT_EQ(s->ReportProgress(r0, 60020)->stop_at_iteration(), 520);
  EXPECT_EQ(s->ReportProgress(r1, 60030)->stop_at_iteration(), 520);
  // Only rank 0 chooses.
  r1.set_stop_at_iteration(999);
  EXPECT_EQ(s->ReportProgress(r1, 60040)->stop_at_iteration(), 520);
}

TEST_F(DaemonStateTest, DrainedNodesGetNoLeasesAndTheirLeasesEnd) {
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  AddNode(*s, "n2", 1, 3, 24, 0);
  const std::string a = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  const std::string node = s->GetJob(a)->lease().slices(0).node();
  Beat(*s, node, 10);
  ASSERT_TRUE(s->SetDrained(node, true, 20).ok());
  ASSERT_TRUE(s->RunRound(1000).ok());
  // The lease moves to the other node; it launches once the old process is gone.
  auto moved = *s->GetJob(a);
  ASSERT_TRUE(moved.has_lease());
  const std::string other = node == "n1" ? "n2" : "n1";
  EXPECT_EQ(moved.lease().slices(0).node(), other);
  v1::RunningProcess old;
  old.set_job_id(a);
  old.set_epoch(moved.lease().epoch() - 1);
  EXPECT_EQ(Beat(*s, other, 1010).launch_size(), 0);
  v1::ProcessExit e = Exit(a, old.epoch(), -1);
  e.set_stopped_by_node(true);
  EXPECT_EQ(Beat(*s, node, 1020, {old}).stop_size(), 1);
  Beat(*s, node, 1030, {}, {e});
  EXPECT_EQ(Beat(*s, other, 1040).launch_size(), 1);
  EXPECT_EQ(s->SetDrained("n9", true, 30).status().code(), absl::StatusCode::kNotFound);
  // The drain is durable.
  s.reset();
  auto reopened = Open();
  AddNode(*reopened, node, 1, 3, 24, 40);
  ASSERT_EQ(reopened->ListNodes(50).size(), 1u);
  for (const v1::Node& n : reopened->ListNodes(50)) {
    if (n.name() == node) {
      EXPECT_TRUE(n.drained());
    }
  }
}

// The operator's scenario of issue 14: nodes of two shapes, a plain
// process (it cannot checkpoint) running on the big one; draining and
// undraining the idle small node and a third node joining move the
// cluster-wide GPU-proportional share, and the plan with it. The job stays
// on its first launch with the limits it started with.
TEST_F(DaemonStateTest, DrainUndrainAndANewNodeLeaveAPlainJobOnItsFirstAttempt) {
  config_.policy = "fifo";
  config_.mechanism = "proportional";
  auto s = Open();
  AddNode(*s, "big", 8, 24, 32, 0);
  AddNode(*s, "small", 2, 2, 8, 0);
  const std::string id = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  // The share of the server it lands on (the fullest that fits: small),
  // 1 core and 4 GB per GPU there, not the cluster's 2.6 cores and 4 GB.
  const v1::Lease first = s->GetJob(id)->lease();
  ASSERT_EQ(first.slices_size(), 1);
  EXPECT_EQ(first.slices(0).node(), "small");
  EXPECT_EQ(first.slices(0).cpu_ids_size(), 1);
  EXPECT_EQ(first.slices(0).mem_gb(), 4.0);
  ASSERT_EQ(Beat(*s, "small", 10).launch_size(), 1);
  v1::RunningProcess p;
  p.set_job_id(id);
  p.set_epoch(first.epoch());
  int64_t t = 1000;
  auto round_keeps_it = [&](const std::string& step) {
    ASSERT_TRUE(s->RunRound(t).ok()) << step;
    auto beat = Beat(*s, "small", t + 10, {p});
    EXPECT_EQ(beat.stop_size(), 0) << step;
    const v1::Job job = *s->GetJob(id);
    ASSERT_TRUE(job.has_lease()) << step;
    EXPECT_EQ(job.lease().epoch(), first.epoch()) << step;
    EXPECT_EQ(job.lease().slices(0).cpu_ids_size(), first.slices(0).cpu_ids_size()) << step;
    EXPECT_EQ(job.lease().slices(0).mem_gb(), first.slices(0).mem_gb()) << step;
    EXPECT_EQ(job.attempts(), 1) << step;
    t += 1000;
  };
  // The idle big node drains and comes back: the cluster's average share
  // moves from 2.6 to 1 core per GPU and back; the job's does not.
  ASSERT_TRUE(s->SetDrained("big", true, t).ok());
  round_keeps_it("drain");
  ASSERT_TRUE(s->SetDrained("big", false, t).ok());
  round_keeps_it("undrain");
  AddNode(*s, "third", 4, 32, 64, t);
  Beat(*s, "big", t);
  round_keeps_it("a third node");
  // A second job gets its planned share where it fits.
  const std::string other = *s->Submit(Spec(1), "alice", t);
  round_keeps_it("a second job");
  EXPECT_TRUE(s->GetJob(other)->has_lease());
}

// The core plans without the daemon's lock: what changes meanwhile (a
// cancel, a drain, a submission) is not overwritten by the round's plan,
// and the next round plans it.
TEST_F(DaemonStateTest, ARoundAppliesNothingToJobsAndNodesThatChangedWhileItPlanned) {
  auto s = Open();
  AddNode(*s, "n1", 1, 4, 16, 0);
  AddNode(*s, "n2", 1, 4, 16, 0);
  AddNode(*s, "n3", 1, 4, 16, 0);
  const std::string cancelled = *s->Submit(Spec(1), "alice", 0);
  const std::string moved = *s->Submit(Spec(1), "alice", 0);
  auto world = s->PrepareRound(10);
  ASSERT_TRUE(world.ok());
  const RoundDecisions decisions = s->PlanRound(*world);
  ASSERT_EQ(decisions.plan.assignments.size(), 2u);
  std::string moved_to;
  for (const Assignment& a : decisions.plan.assignments) {
    if (JobIdString(a.job) == moved) moved_to = decisions.node_names[a.slices[0].server];
  }
  ASSERT_FALSE(moved_to.empty());
  // Meanwhile (the lock is free while the core plans):
  ASSERT_TRUE(s->Cancel(cancelled, 11).ok());
  ASSERT_TRUE(s->SetDrained(moved_to, true, 11).ok());
  const std::string late = *s->Submit(Spec(1), "alice", 11);
  ASSERT_TRUE(s->ApplyRound(*world, decisions, 12).ok());
  EXPECT_EQ(s->GetJob(cancelled)->state(), v1::JOB_STATE_CANCELLED);
  EXPECT_FALSE(s->GetJob(cancelled)->has_lease()) << "a cancelled job is not granted what the round planned";
  EXPECT_FALSE(s->GetJob(moved)->has_lease()) << "nothing is granted on a node drained meanwhile";
  EXPECT_FALSE(s->GetJob(late)->has_lease());
  // The next round plans what changed: both waiting jobs on the two nodes left.
  ASSERT_TRUE(s->RunRound(20).ok());
  ASSERT_TRUE(s->GetJob(moved)->has_lease());
  ASSERT_TRUE(s->GetJob(late)->has_lease());
  EXPECT_NE(s->GetJob(moved)->lease().slices(0).node(), moved_to);
  EXPECT_NE(s->GetJob(late)->lease().slices(0).node(), moved_to);
  EXPECT_NE(s->GetJob(moved)->lease().slices(0).node(), s->GetJob(late)->lease().slices(0).node());
}

// A lease that ends while the round plans (its process exited) is not
// kept or ended again by the round's stale decision.
TEST_F(DaemonStateTest, ALeaseThatEndedWhileTheRoundPlannedIsLeftAlone) {
  auto s = Open();
  AddNode(*s, "n1", 1, 4, 16, 0);
  const std::string id = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  ASSERT_EQ(Beat(*s, "n1", 10).launch_size(), 1);
  const int64_t epoch = s->GetJob(id)->lease().epoch();
  auto world = s->PrepareRound(1000);
  ASSERT_TRUE(world.ok());
  const RoundDecisions decisions = s->PlanRound(*world);
  ASSERT_EQ(decisions.leases.at(id).fate, LeaseFate::kKeep);
  // Meanwhile its process exits cleanly.
  v1::HeartbeatRequest beat;
  beat.set_name("n1");
  v1::ProcessExit* exit = beat.add_exits();
  exit->set_job_id(id);
  exit->set_epoch(epoch);
  exit->set_exit_code(0);
  ASSERT_TRUE(s->Heartbeat(beat, 1001).ok());
  ASSERT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_SUCCEEDED);
  ASSERT_TRUE(s->ApplyRound(*world, decisions, 1002).ok());
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_FALSE(s->GetJob(id)->has_lease());
  EXPECT_EQ(s->GetJob(id)->attempts(), 1);
}

// Attained service is the time a job held its GPUs: from its launch (not
// its grant, nor the launch order: the node's first report of the process)
// to its lease's end, stored with progress every flush and counted to now
// by each round in between.
TEST_F(DaemonStateTest, ServiceCountsTheTimeHeldFromLaunchToTheEnd) {
  config_.round_s = 1;  // the round's view counts service in tenths of a round
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string id = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  const int64_t epoch = s->GetJob(id)->lease().epoch();
  ASSERT_EQ(Beat(*s, "n1", 500).launch_size(), 1);  // granted at 0, ordered at 0.5 s
  const v1::RunningProcess p = Running(id, epoch);
  EXPECT_EQ(s->SnapshotForRound(900).views[0].attained_service_s, 0.0) << "not before a report shows it";
  Beat(*s, "n1", 1000, {p});  // launched at 1 s
  EXPECT_EQ(s->SnapshotForRound(4000).views[0].attained_service_s, 3.0);
  for (int64_t t = 3000; t <= 12000; t += 2000) Beat(*s, "n1", t, {p});  // alive (heartbeat_timeout_s 3)
  ASSERT_TRUE(s->Tick(12000).ok());  // a progress flush stores it
  EXPECT_EQ(s->GetJob(id)->attained_service_ms(), 11000);
  Beat(*s, "n1", 14000, {p});
  Beat(*s, "n1", 15000, {}, {Exit(id, epoch, 0)});
  EXPECT_EQ(s->GetJob(id)->attained_service_ms(), 14000);
  s.reset();
  EXPECT_EQ(Open()->GetJob(id)->attained_service_ms(), 14000);
}

// A progress flush waits for the store without the lock: a report that
// arrives meanwhile is not forgotten with the flush's older copy; the next
// flush stores it.
TEST_F(DaemonStateTest, AReportDuringAFlushIsStoredByTheNextOne) {
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string id = *s->Submit(Spec(1, "res18", 1000), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  // Granted, not yet launched: flushes store it only for its reports.
  const int64_t epoch = s->GetJob(id)->lease().epoch();
  auto report = [&](int64_t done, int64_t t) {
    v1::ProgressReport r;
    r.set_job_id(id);
    r.set_epoch(epoch);
    r.set_iterations_done(done);
    r.set_throughput(5);
    ASSERT_TRUE(s->ReportProgress(r, t).ok());
  };
  report(10, 2000);
  DaemonState::ProgressFlush flush = s->StartProgressFlush(3000);
  report(20, 3001);  // while the flush waits for the store
  ASSERT_TRUE(s->FinishProgressFlush(flush, s->StoreProgress(flush)).ok());
  ASSERT_TRUE(s->FlushProgress(4000).ok());
  s.reset();
  EXPECT_EQ(Open()->GetJob(id)->iterations_done(), 20);
}

// A node lost while a lease on it was ending (no exit will ever come):
// the lease is over and its job waits for the next one, instead of staying
// RUNNING with nothing to run under.
TEST_F(DaemonStateTest, AnEndingLeaseLostWithItsNodeLeavesItsJobSuspended) {
  auto s = Open();
  AddNode(*s, "n1", 1, 4, 16, 0);
  AddNode(*s, "n2", 1, 4, 16, 0);
  // The plain job first: FIFO keeps it ahead of the agent's.
  const std::string plain = *s->Submit(Spec(1), "alice", 0);
  const std::string agent = *s->Submit(Spec(1, "res18", 100000), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  const std::string home = s->GetJob(agent)->lease().slices(0).node();
  const std::string other = s->GetJob(plain)->lease().slices(0).node();
  ASSERT_NE(home, other);
  Beat(*s, home, 100);
  Beat(*s, other, 100);
  // Its node drains: the agent's lease ends (it is to checkpoint) and no
  // other node is free.
  ASSERT_TRUE(s->SetDrained(home, true, 1000).ok());
  ASSERT_TRUE(s->RunRound(1000).ok());
  ASSERT_FALSE(s->GetJob(agent)->has_lease());
  ASSERT_EQ(s->GetJob(agent)->state(), v1::JOB_STATE_RUNNING) << "its lease is ending";
  // Then the node goes silent past heartbeat_timeout_s.
  v1::RunningProcess p;
  p.set_job_id(plain);
  p.set_epoch(s->GetJob(plain)->lease().epoch());
  Beat(*s, other, 4000, {p});
  ASSERT_TRUE(s->Tick(4000).ok());
  EXPECT_EQ(s->GetJob(agent)->state(), v1::JOB_STATE_SUSPENDED);
  // A new node: the next round places it.
  AddNode(*s, "n3", 1, 4, 16, 4100);
  ASSERT_TRUE(s->RunRound(4100).ok());
  ASSERT_TRUE(s->GetJob(agent)->has_lease());
  EXPECT_EQ(s->GetJob(agent)->lease().slices(0).node(), "n3");
}

// synergy-node on SIGTERM says it is leaving: its leases end at once (a
// plain process is stopped with the grace, an agent checkpoints), nothing
// more launches there, the jobs are requeued and the next round places
// them elsewhere, and the node is let go once its processes have exited.
TEST_F(DaemonStateTest, ALeavingNodesJobsAreRequeuedAtOnce) {
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string plain = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  ASSERT_EQ(Beat(*s, "n1", 10).launch_size(), 1);
  const int64_t epoch = s->GetJob(plain)->lease().epoch();
  AddNode(*s, "n2", 1, 3, 24, 20);
  v1::RunningProcess p;
  p.set_job_id(plain);
  p.set_epoch(epoch);
  v1::HeartbeatRequest leaving;
  leaving.set_name("n1");
  leaving.set_leaving(true);
  *leaving.add_running() = p;
  auto reply = s->Heartbeat(leaving, 30);
  ASSERT_TRUE(reply.ok()) << reply.status();
  ASSERT_EQ(reply->stop_size(), 1);
  EXPECT_EQ(reply->stop(0).grace_ms(), 2000);  // lease_grace_s
  EXPECT_FALSE(s->GetJob(plain)->has_lease());
  EXPECT_EQ(s->ListNodes(30)[0].leaving(), true);
  // The next round moves it to n2, where it launches once the old process has exited.
  ASSERT_TRUE(s->RunRound(100).ok());
  ASSERT_TRUE(s->GetJob(plain)->has_lease());
  EXPECT_EQ(s->GetJob(plain)->lease().slices(0).node(), "n2");
  EXPECT_EQ(Beat(*s, "n2", 110).launch_size(), 0);
  v1::ProcessExit e = Exit(plain, epoch, -1);
  e.set_stopped_by_node(true);
  v1::HeartbeatRequest gone;
  gone.set_name("n1");
  gone.set_leaving(true);
  *gone.add_exits() = e;
  ASSERT_TRUE(s->Heartbeat(gone, 120).ok());
  EXPECT_FALSE(s->ListNodes(120)[0].alive()) << "a node with nothing left running is let go";
  EXPECT_EQ(Beat(*s, "n2", 130).launch_size(), 1);
  EXPECT_EQ(s->GetJob(plain)->attempts(), 2);
}

// One core, two drivers: the daemon's round input and the simulator's, for
// the same cluster and the same queue, give the identical plan.
TEST_F(DaemonStateTest, PlansAsTheSimulatorDoes) {
  for (const std::string policy : {"fifo", "srtf", "las", "ftf"}) {
    for (const std::string mechanism : {"proportional", "greedy", "tune", "tune-graded"}) {
      std::filesystem::remove(config_.state_db);
      config_.policy = policy;
      config_.mechanism = mechanism;
      auto s = Open();
      for (int n = 0; n < 3; ++n) AddNode(*s, "n" + std::to_string(n), 8, 24, 500, 0);
      const ModelZoo zoo = testing::ZooOrDie();
      std::vector<sim::JobSpec> trace;
      const std::vector<std::string> models = {"alexnet", "res18", "gnmt", "transformer", "mobilenet", "lstm", "m5"};
      const std::vector<int> gpus = {1, 2, 1, 4, 1, 8, 1, 2, 1, 1, 4, 1};
      for (int i = 0; i < 12; ++i) {
        const std::string& model = models[i % models.size()];
        ASSERT_TRUE(s->Submit(Spec(gpus[i], model, 1000 + 100 * i), "alice", 0).ok());
        sim::JobSpec j;
        j.id = i + 1;
        j.model = zoo.Find(model);
        j.gpus = gpus[i];
        j.iterations = 1000 + 100 * i;
        j.arrival_s = 0;
        trace.push_back(j);
      }
      RoundSnapshot snap = s->SnapshotForRound(0);
      RoundInput din;
      din.cluster = &snap.cluster;
      for (const JobView& v : snap.views) din.queue.push_back(&v);
      auto p = *MakePolicy(policy);
      auto m = *MakeMechanism(mechanism);
      const Plan daemon_plan = ScheduleRound(din, *p, *m).plan;

      std::optional<Plan> sim_plan;
      sim::SimConfig sc;
      sc.cluster = &snap.cluster;
      sc.zoo = &zoo;
      sc.policy = p.get();
      sc.mechanism = m.get();
      sc.on_round = [&](const RoundInput&, const RoundResult& r) {
        if (!sim_plan) sim_plan = r.plan;
      };
      ASSERT_TRUE(sim::RunTrace(sc, trace).ok());
      ASSERT_TRUE(sim_plan.has_value());
      const std::string label = policy + "/" + mechanism;
      ASSERT_FALSE(daemon_plan.assignments.empty());
      testing::ExpectSamePlan(daemon_plan, *sim_plan, label);
    }
  }
}

}  // namespace
}  // namespace synergy::daemon

namespace synergy::daemon {
namespace {

// A plain process loses all its work when its lease ends: LAS's
// time-slicing SIGTERMed such jobs and ran them again from scratch every
// round or two (seen on the Slurm executor). It runs on under LAS beside
// waiting jobs of its class; only a higher class takes its GPU.
TEST_F(DaemonStateTest, APlainProcessIsNotTimeSlicedOnlyAHigherClassEndsIt) {
  config_.policy = "las";
  auto s = Open();
  AddNode(*s, "n1", 1, 3, 24, 0);
  const std::string plain = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  const int64_t epoch = s->GetJob(plain)->lease().epoch();
  Beat(*s, "n1", 500, {Running(plain, epoch)});
  // An agent job of no service waits: under LAS it would take the GPU.
  const std::string agent = *s->Submit(Spec(1, "res18", 1000), "bob", 1000);
  for (int64_t t : {60000, 120000, 180000}) {
    ASSERT_TRUE(s->RunRound(t).ok());
    Beat(*s, "n1", t + 500, {Running(plain, epoch)});
    const v1::Job held = *s->GetJob(plain);
    EXPECT_EQ(held.lease().epoch(), epoch) << "at " << t;
    EXPECT_EQ(s->GetJob(agent)->state(), v1::JOB_STATE_QUEUED) << "at " << t;
  }
  // A job of a higher class ends its lease.
  v1::JobSpec urgent = Spec(1, "res18", 1000);
  urgent.set_priority(1);
  const std::string high = *s->Submit(urgent, "bob", 200000);
  ASSERT_TRUE(s->RunRound(240000).ok());
  EXPECT_FALSE(s->GetJob(plain)->has_lease())
      << "a higher class takes the GPU of a plain process";
  (void)high;
}

}  // namespace
}  // namespace synergy::daemon
