// Dependencies and job arrays on DaemonState, driven by hand (issue 44,
// items 3 and 4): a job waits for its after_ok/after_any jobs, saying
// which; one whose after_ok job fails is cancelled naming it; unknown or
// failed dependencies are refused at submission; an array is one
// submission of consecutive jobs, each with its index in its environment,
// at most its cap running at once, named by its index, and a dependency
// on an array waits for all its jobs.
#include "daemon/state/daemon_state.h"
#include "daemon_state_fixture.h"
#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

class DependencyArrayTest : public DaemonStateTest {
 protected:
  // FIFO on n1 with `gpus` GPUs; nodes beaten only when a test does.
  std::unique_ptr<DaemonState> Cluster(int gpus) {
    config_.policy = "fifo";
    config_.heartbeat_timeout_s = 3600;
    config_.launch_between_rounds = false;
    auto s = Open();
    AddNode(*s, "n1", gpus, 4 * gpus, 24.0 * gpus, 0);
    return s;
  }
  // The job's lease confirmed running, then its exit with `code`.
  static void RunAndExit(DaemonState& s, const std::string& id, int code, int64_t now_ms) {
    const int64_t epoch = s.GetJob(id)->lease().epoch();
    ASSERT_GT(epoch, 0) << id << " holds no lease";
    Beat(s, "n1", now_ms, {Running(id, epoch)});
    Beat(s, "n1", now_ms + 100, {}, {Exit(id, epoch, code)});
  }
  static v1::JobSpec After(std::vector<std::string> ok, std::vector<std::string> any = {}) {
    v1::JobSpec spec = Spec(1);
    spec.set_max_retries(0);
    for (const std::string& id : ok) spec.add_after_ok(id);
    for (const std::string& id : any) spec.add_after_any(id);
    return spec;
  }
  static bool HasEvent(const v1::Job& job, const std::string& text) {
    for (const v1::JobEvent& e : job.events()) {
      if (e.text().find(text) != std::string::npos) return true;
    }
    return false;
  }
};

TEST_F(DependencyArrayTest, AnAfterOkJobWaitsNamingItsDependencyAndRunsOnceItSucceeded) {
  auto s = Cluster(2);
  const std::string a = *s->Submit(After({}), "alice", 0);
  const std::string b = *s->Submit(After({a}), "alice", 0);
  ASSERT_TRUE(s->RunRound(1000).ok());
  // A free GPU, and still it waits: for a, by name.
  EXPECT_TRUE(s->GetJob(a)->has_lease());
  EXPECT_FALSE(s->GetJob(b)->has_lease());
  EXPECT_EQ(s->GetJob(b)->reason(), "waiting for j-000001 to succeed (after_ok; it is running)");
  RunAndExit(*s, a, 0, 2000);
  ASSERT_EQ(s->GetJob(a)->state(), v1::JOB_STATE_SUCCEEDED);
  ASSERT_TRUE(s->RunRound(3000).ok());
  const v1::Job after = *s->GetJob(b);
  EXPECT_TRUE(after.has_lease());
  EXPECT_TRUE(after.dependencies_met());
  EXPECT_TRUE(HasEvent(after, "dependencies met"));
}

TEST_F(DependencyArrayTest, AFailedDependencyCancelsAfterOkJobsAndReleasesAfterAnyJobs) {
  auto s = Cluster(2);
  const std::string a = *s->Submit(After({}), "alice", 0);
  const std::string ok = *s->Submit(After({a}), "alice", 0);
  const std::string any = *s->Submit(After({}, {a}), "alice", 0);
  ASSERT_TRUE(s->RunRound(1000).ok());
  EXPECT_EQ(s->GetJob(any)->reason(), "waiting for j-000001 to end (after_any; it is running)");
  RunAndExit(*s, a, 1, 2000);
  ASSERT_EQ(s->GetJob(a)->state(), v1::JOB_STATE_FAILED);
  ASSERT_TRUE(s->RunRound(3000).ok());
  const v1::Job cancelled = *s->GetJob(ok);
  EXPECT_EQ(cancelled.state(), v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(cancelled.reason(), "dependency j-000001 (after_ok) ended failed: it can never be met");
  EXPECT_FALSE(cancelled.has_lease());
  EXPECT_TRUE(s->GetJob(any)->has_lease());
  // Stored: a restarted daemon finds the one cancelled and the other free to run.
  s.reset();
  auto again = Open(10000);
  EXPECT_EQ(again->GetJob(ok)->state(), v1::JOB_STATE_CANCELLED);
  EXPECT_TRUE(again->GetJob(any)->dependencies_met());
}

TEST_F(DependencyArrayTest, UnknownOrFailedDependenciesAreRefusedAtSubmissionAndTakeNoId) {
  auto s = Cluster(1);
  auto unknown = s->Submit(After({"j-000099"}), "alice", 0);
  ASSERT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(), "spec.after_ok[0]: 'j-000099' is not a job synergyd knows");
  const std::string a = *s->Submit(After({}), "alice", 0);
  EXPECT_EQ(a, "j-000001");  // the refused one took no id
  ASSERT_TRUE(s->Cancel(a, 10).ok());
  auto after_cancelled = s->Submit(After({a}), "alice", 20);
  ASSERT_EQ(after_cancelled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(after_cancelled.status().message(),
            "spec.after_ok[0]: dependency j-000001 (after_ok) ended cancelled: it can never be met");
  // after_any on an ended job is met at once.
  const std::string any = *s->Submit(After({}, {a}), "alice", 30);
  ASSERT_TRUE(s->RunRound(1000).ok());
  EXPECT_TRUE(s->GetJob(any)->has_lease());
}

TEST_F(DependencyArrayTest, AnArrayIsConsecutiveJobsWithTheirIndexAndAtMostItsCapRunning) {
  auto s = Cluster(4);
  v1::JobSpec spec = Spec(1);
  spec.set_array("0-8:2%2");
  const std::string head = *s->Submit(spec, "alice", 0);
  EXPECT_EQ(head, "j-000001");
  v1::ListJobsRequest of_array;
  of_array.set_array_id(head);
  const auto listed = s->ListJobs(of_array)->jobs;
  ASSERT_EQ(listed.size(), 5u);
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(listed[k].id(), "j-00000" + std::to_string(k + 1));
    EXPECT_EQ(listed[k].array_id(), head);
    EXPECT_EQ(listed[k].array_index(), 2 * k);
  }
  // Named by index; an index it does not have stays a name of nothing.
  EXPECT_EQ(s->ResolveJobName("j-000001_6"), "j-000004");
  EXPECT_EQ(s->ResolveJobName("j-000001_3"), "j-000001_3");
  // Four free GPUs, a cap of two.
  ASSERT_TRUE(s->RunRound(1000).ok());
  const auto holding_leases = [&] {
    const std::vector<v1::Job> jobs = s->ListJobs(of_array)->jobs;  // kept: a range-for over a temporary's member dangles
    int holding = 0;
    for (const v1::Job& j : jobs) holding += j.has_lease() ? 1 : 0;
    return holding;
  };
  EXPECT_EQ(holding_leases(), 2);
  const v1::HeartbeatResponse reply = Beat(*s, "n1", 1500);
  ASSERT_EQ(reply.launch_size(), 2);
  EXPECT_EQ(reply.launch(0).env().at("SYNERGY_ARRAY_JOB_ID"), head);
  EXPECT_EQ(reply.launch(1).env().at("SYNERGY_ARRAY_INDEX"), "2");
  // One ends: the next takes its place, never a third beside them.
  RunAndExit(*s, "j-000001", 0, 2000);
  ASSERT_TRUE(s->RunRound(3000).ok());
  EXPECT_EQ(holding_leases(), 2);
  EXPECT_TRUE(s->GetJob("j-000003")->has_lease());
}

TEST_F(DependencyArrayTest, ADependencyOnAnArrayWaitsForAllItsJobs) {
  auto s = Cluster(4);
  v1::JobSpec spec = Spec(1);
  spec.set_array("0-1");
  const std::string head = *s->Submit(spec, "alice", 0);
  // By the array's id, and by the name of one of its jobs: index 0's is
  // the array's first job alone, not the array.
  const std::string all = *s->Submit(After({head}), "alice", 0);
  const std::string one = *s->Submit(After({"j-000001_1"}), "alice", 0);
  const std::string first = *s->Submit(After({"j-000001_0"}), "alice", 0);
  EXPECT_EQ(s->GetJob(one)->spec().after_ok(0), "j-000001_1");  // as named
  ASSERT_TRUE(s->RunRound(1000).ok());
  RunAndExit(*s, "j-000002", 0, 2000);
  ASSERT_TRUE(s->RunRound(3000).ok());
  EXPECT_TRUE(s->GetJob(one)->has_lease());
  EXPECT_FALSE(s->GetJob(all)->has_lease());
  EXPECT_EQ(s->GetJob(all)->reason(), "waiting for j-000001 of array j-000001 to succeed (after_ok; it is running)");
  EXPECT_EQ(s->GetJob(first)->reason(), "waiting for j-000001_0 to succeed (after_ok; it is running)");
  RunAndExit(*s, "j-000001", 0, 4000);
  ASSERT_TRUE(s->RunRound(5000).ok());
  EXPECT_TRUE(s->GetJob(all)->has_lease());
  EXPECT_TRUE(s->GetJob(first)->has_lease());
}

}  // namespace
}  // namespace synergy::daemon

namespace synergy::daemon {
namespace {

TEST(CheckDependencies, AJobSynergydNoLongerKnowsHasEndedWithoutSuccess) {
  v1::JobSpec spec;
  spec.add_after_any("j-000007");
  const auto unknown = [](const std::string&) { return std::optional<v1::JobState>(); };
  const auto no_arrays = [](const std::string&) { return std::vector<std::string>(); };
  EXPECT_EQ(CheckDependencies(spec, unknown, no_arrays).outcome, DependencyCheck::Outcome::kMet);
  spec.add_after_ok("j-000008");
  const DependencyCheck check = CheckDependencies(spec, unknown, no_arrays);
  EXPECT_EQ(check.outcome, DependencyCheck::Outcome::kNeverMet);
  EXPECT_EQ(DescribeDependency(check),
            "dependency j-000008 (after_ok) is no longer known to synergyd: it can never be met");
}

TEST(CheckDependencies, OneArrayJobThatFailedDecidesWhileOthersStillRun) {
  v1::JobSpec spec;
  spec.add_after_ok("j-000001");
  const auto states = [](const std::string& id) {
    return std::optional<v1::JobState>(id == "j-000002" ? v1::JOB_STATE_FAILED : v1::JOB_STATE_RUNNING);
  };
  const auto array = [](const std::string& id) {
    return id == "j-000001" ? std::vector<std::string>{"j-000001", "j-000002", "j-000003"} : std::vector<std::string>{};
  };
  const DependencyCheck check = CheckDependencies(spec, states, array);
  EXPECT_EQ(check.outcome, DependencyCheck::Outcome::kNeverMet);
  EXPECT_EQ(check.job, "j-000002");
  EXPECT_EQ(DescribeDependency(check),
            "dependency j-000002 of array j-000001 (after_ok) ended failed: it can never be met");
}

}  // namespace
}  // namespace synergy::daemon
