// The Slurm executor (slurm/slurm_executor.h) between a real DaemonState
// (its store in a real SQLite file) and a scripted Slurm that answers
// sinfo and squeue as Slurm 22.05 writes them and records every sbatch,
// signal and cancel: registration from sinfo, a lease as one sbatch and
// never two, exits told once, stops as TERM then cancel, lost and drained
// nodes, foreign jobs, refused owners, and the same plan as with
// synergy-node's registrations.
#include "slurm/slurm_executor.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon_state_fixture.h"
#include "gmock/gmock.h"
#include "service/request_validation.h"

namespace synergy::daemon {
namespace {

using ::testing::HasSubstr;

// A Slurm cluster as the executor sees it: nodes, jobs, and what was done.
class ScriptedSlurm final : public slurm::SlurmControl {
 public:
  struct Node {
    std::string name;
    std::string state = "idle";
    std::string flags;  // JSON list items: "\"DRAIN\""
    int cpus = 4;
    int64_t memory_mb = 24 * 1024;
    int gpus = 2;
    std::string partition = "synergy";
    // What Slurm has allocated there to jobs this Slurm does not list (other
    // partitions' jobs): added to its listed running jobs' resources.
    slurm::SlurmResources foreign;
  };
  struct Job {
    int64_t id = 0;
    int64_t uid = 0;
    std::string name;
    std::string state = "RUNNING";
    int wait_status = 0;
    std::string node;
    std::string partition = "synergy";
    int64_t end_time = 0;  // squeue's end_time (s); 0: not written
    slurm::SlurmResources holds;  // from sbatch's --gres, --cpus-per-task, --mem
  };
  std::vector<Node> nodes;
  std::map<int64_t, Job> jobs;
  std::vector<slurm::SbatchCall> submitted;
  std::vector<std::string> actions;  // "TERM 3", "cancel 3"
  // The next Submit's answer is lost after Slurm took the job; with
  // hide_lost, squeue lists that job only once `hidden` is cleared.
  bool lose_next_answer = false;
  bool hide_lost = false;
  std::map<int64_t, Job> hidden;
  bool refuse_next = false;
  bool unreadable = false;
  // slurmctld down as 22.05's sinfo and squeue say it: exit 0, an "errors"
  // list and no nodes or jobs.
  bool errors_reply = false;
  int64_t next_id = 100;
  int squeue_calls = 0;

  absl::StatusOr<std::string> NodesJson() override {
    if (unreadable) return absl::UnavailableError("sinfo: Unable to contact slurm controller");
    if (errors_reply) {
      return std::string(R"json({"meta": {}, "errors": [{"error": "Unable to contact slurm controller (connect failure)",)json"
                         R"json( "errno": 1001}], "nodes": []})json");
    }
    std::vector<std::string> items;
    for (const Node& n : nodes) {
      slurm::SlurmResources alloc = n.foreign;
      for (const auto& [id, j] : jobs) {
        if (j.node != n.name || (j.state != "RUNNING" && j.state != "COMPLETING")) continue;
        alloc.gpus += j.holds.gpus;
        alloc.cpus += j.holds.cpus;
        alloc.memory_mb += j.holds.memory_mb;
      }
      items.push_back(absl::StrCat(R"({"name": ")", n.name, R"(", "address": "127.0.0.1", "state": ")", n.state,
                                   R"(", "state_flags": [)", n.flags, R"(], "cpus": )", n.cpus,
                                   R"(, "real_memory": )", n.memory_mb, R"(, "gres": "gpu:)", n.gpus,
                                   R"(", "partitions": [")", n.partition, R"("], "alloc_cpus": )", alloc.cpus,
                                   R"(, "alloc_memory": )", alloc.memory_mb, R"(, "gres_used": "gpu:(null):)",
                                   alloc.gpus, R"x((IDX:N/A)"})x"));
    }
    return absl::StrCat(R"({"nodes": [)", absl::StrJoin(items, ", "), "]}");
  }
  absl::StatusOr<std::string> JobsJson() override {
    ++squeue_calls;
    if (errors_reply) {
      return std::string(R"json({"meta": {}, "errors": [{"error": "Unable to contact slurm controller (connect failure)",)json"
                         R"json( "errno": 1001}], "jobs": []})json");
    }
    std::vector<std::string> items;
    for (const auto& [id, j] : jobs) {
      const bool pending = j.state == "PENDING";
      items.push_back(absl::StrCat(R"({"job_id": )", id, R"(, "user_id": )", j.uid, R"(, "name": ")", j.name,
                                   R"(", "job_state": ")", j.state, R"(", "exit_code": )", j.wait_status,
                                   R"(, "nodes": ")", pending ? "" : j.node, R"(", "required_nodes": ")", j.node,
                                   R"(", "partition": ")", j.partition, R"(", "end_time": )", j.end_time,
                                   R"(, "cpus": )", j.holds.cpus, R"(, "memory_per_node": )", j.holds.memory_mb,
                                   R"(, "memory_per_cpu": null, "tres_per_node": "gres:gpu:)", j.holds.gpus, R"("})"));
    }
    return absl::StrCat(R"({"jobs": [)", absl::StrJoin(items, ", "), "]}");
  }
  absl::StatusOr<int64_t> Submit(const slurm::SbatchCall& call) override {
    if (refuse_next) {
      refuse_next = false;
      return absl::FailedPreconditionError("sbatch failed (exit 1): Requested node configuration is not available");
    }
    submitted.push_back(call);
    Job j;
    j.id = next_id++;
    for (const std::string& a : call.argv) {
      if (absl::StartsWith(a, "--job-name=")) j.name = a.substr(11);
      if (absl::StartsWith(a, "--nodelist=")) j.node = a.substr(11);
      if (absl::StartsWith(a, "--uid=")) j.uid = std::stoll(a.substr(6));
      if (absl::StartsWith(a, "--gres=gpu:")) j.holds.gpus = std::stoi(a.substr(11));
      if (absl::StartsWith(a, "--cpus-per-task=")) j.holds.cpus = std::stoi(a.substr(16));
      if (absl::StartsWith(a, "--mem=")) j.holds.memory_mb = std::stoll(a.substr(6));  // "512M": the number
    }
    if (lose_next_answer) {
      lose_next_answer = false;
      (hide_lost ? hidden : jobs)[j.id] = j;
      return absl::UnavailableError("sbatch: error: Socket timed out");
    }
    jobs[j.id] = j;
    return j.id;
  }
  absl::Status Signal(int64_t job, const std::string& signal) override {
    // As scancel --signal: a job that has ended cannot be signalled.
    if (auto it = jobs.find(job); it != jobs.end() && it->second.state != "RUNNING" && it->second.state != "PENDING") {
      return absl::FailedPreconditionError(absl::StrCat("scancel: error: Kill job error on job id ", job,
                                                        ": Job/step already completing or completed"));
    }
    actions.push_back(absl::StrCat(signal, " ", job));
    return absl::OkStatus();
  }
  absl::Status Cancel(int64_t job) override {
    actions.push_back(absl::StrCat("cancel ", job));
    if (jobs.count(job)) {
      jobs[job].state = "CANCELLED";
      jobs[job].wait_status = 15;
    }
    return absl::OkStatus();
  }
  // The job Slurm has for a lease (0 when none).
  int64_t JobOf(const std::string& job_id, int64_t epoch) const {
    for (const auto& [id, j] : jobs) {
      if (j.name == slurm::SlurmJobName(job_id, epoch)) return id;
    }
    return 0;
  }
};

// synergyd's side, as the daemon's adapter gives it (checked, then applied).
class StateEndpoint final : public slurm::NodeEndpoint {
 public:
  StateEndpoint(DaemonState& s, const int64_t& now_ms) : s_(s), now_ms_(now_ms) {}
  absl::StatusOr<v1::RegisterNodeResponse> Register(const v1::RegisterNodeRequest& r) override {
    if (absl::Status st = service::ValidateRegisterNodeRequest(r); !st.ok()) return st;
    ++registrations;
    auto interval = s_.RegisterNode(r, now_ms_);
    if (!interval.ok()) return interval.status();
    return v1::RegisterNodeResponse();
  }
  absl::StatusOr<v1::HeartbeatResponse> Heartbeat(const v1::HeartbeatRequest& r) override {
    if (absl::Status st = service::ValidateHeartbeatRequest(r); !st.ok()) return st;
    return s_.Heartbeat(r, now_ms_);
  }
  std::optional<std::string> OwnerOf(const std::string& job_id) override {
    auto owner = s_.OwnerOf(job_id);
    if (!owner.ok()) return std::nullopt;
    return *owner;
  }
  int registrations = 0;

 private:
  DaemonState& s_;
  const int64_t& now_ms_;
};

constexpr int64_t kAliceUid = 1000;

// The test's accounts (their folders are not made: see MakeExecutor).
absl::StatusOr<slurm::JobIdentity> TestUids(const std::string& user) {
  if (user == "alice") return slurm::JobIdentity{kAliceUid, kAliceUid, "alice"};
  if (user == "bob") return slurm::JobIdentity{1001, 1001, "bob"};
  return absl::NotFoundError(absl::StrCat("user '", user, "': no local account '", user, "'"));
}

class SlurmExecutorTest : public DaemonStateTest {
 protected:
  void Start() {
    state_ = Open();
    endpoint_ = std::make_unique<StateEndpoint>(*state_, now_ms_);
    executor_ = MakeExecutor();
  }
  std::unique_ptr<slurm::SlurmExecutor> MakeExecutor() {
    slurm::SlurmExecutorConfig c;
    c.partition = "synergy";
    c.sbatch.partition = "synergy";
    c.sbatch.log_dir = "/tmp/synergy-slurm-logs";
    c.sbatch.slurm_env = {{"PATH", "/usr/bin"}};
    c.submit_visible_ms = 10000;
    c.read_interval_ms = read_interval_ms_;
    c.default_env = default_env_;
    // Folders for uid 1000 need root: the calls are recorded instead
    // (output_folders_test makes real ones).
    c.make_output_folders = [this](const std::string& dir, const slurm::JobIdentity& who, const std::string& node) {
      folders_made_.push_back(absl::StrCat(dir, " ", who.folder, " ", who.uid, ":", who.gid, " ", node));
      return absl::OkStatus();
    };
    return std::make_unique<slurm::SlurmExecutor>(c, slurm_, *endpoint_, TestUids);
  }
  void Step() { ASSERT_TRUE(executor_->Step(now_ms_).ok()); }
  // One node, sn1; `spec`'s job submitted by alice, granted a lease by a
  // round and sbatch'ed by the next step: `id`.
  void SubmitOneToSlurm(const v1::JobSpec& spec, std::string& id) {
    slurm_.nodes = {{"sn1"}};
    Start();
    Step();
    auto submitted = state_->Submit(spec, "alice", now_ms_);
    ASSERT_TRUE(submitted.ok()) << submitted.status();
    id = *submitted;
    ASSERT_TRUE(state_->RunRound(now_ms_).ok());
    Step();
  }
  // synergyd killed and started again on its store, with a new executor.
  void Restart() {
    executor_.reset();
    endpoint_.reset();
    state_.reset();
    Start();
  }
  // The job's state as synergyd has it.
  v1::JobState StateOf(const std::string& id) { return state_->GetJob(id)->state(); }
  int64_t EpochOf(const std::string& id) { return state_->GetJob(id)->lease().epoch(); }

  ScriptedSlurm slurm_;
  int64_t read_interval_ms_ = 0;
  std::map<std::string, std::string> default_env_;
  std::vector<std::string> folders_made_;
  int64_t now_ms_ = 1000;
  std::unique_ptr<DaemonState> state_;
  std::unique_ptr<StateEndpoint> endpoint_;
  std::unique_ptr<slurm::SlurmExecutor> executor_;
};

TEST_F(SlurmExecutorTest, RegistersThePartitionsUsableNodesWithSlurmsResources) {
  slurm_.nodes = {{"sn1"}, {"sn2", "down"}, {"other", "idle", "", 4, 24 * 1024, 2, "batch"}};
  slurm_.nodes[0].cpus = 6;
  slurm_.nodes[0].memory_mb = 48 * 1024;
  Start();
  Step();
  std::vector<v1::Node> nodes = state_->ListNodes(now_ms_);
  ASSERT_EQ(nodes.size(), 1u) << "a down node and another partition's are not synergyd's nodes";
  EXPECT_EQ(nodes[0].name(), "sn1");
  EXPECT_EQ(nodes[0].capacity().gpu_ids_size(), 2);
  EXPECT_EQ(nodes[0].capacity().cpu_ids_size(), 6);
  EXPECT_DOUBLE_EQ(nodes[0].capacity().mem_gb(), 48);
  EXPECT_THAT(nodes[0].cgroups(), HasSubstr("slurm"));
}

// F7: a node's resources were read at registration only; a gres cut from
// 4 GPUs to 2 still got 4-GPU leases, which sbatch refused.
TEST_F(SlurmExecutorTest, ANodeWhoseResourcesChangeInSlurmRegistersAgain) {
  slurm_.nodes = {{"sn1"}};
  slurm_.nodes[0].gpus = 4;
  Start();
  Step();
  ASSERT_EQ(state_->ListNodes(now_ms_)[0].capacity().gpu_ids_size(), 4);
  slurm_.nodes[0].gpus = 2;
  slurm_.nodes[0].cpus = 2;
  now_ms_ += 1000;
  Step();
  v1::Node node = state_->ListNodes(now_ms_)[0];
  EXPECT_EQ(node.capacity().gpu_ids_size(), 2);
  EXPECT_EQ(node.capacity().cpu_ids_size(), 2);
  EXPECT_TRUE(node.alive());
  EXPECT_EQ(state_->Submit(Spec(4), "alice", now_ms_).status().code(), absl::StatusCode::kInvalidArgument)
      << "a 4-GPU job no longer fits the cluster";
}

// scancel of a job Slurm no longer lists failed "Invalid job id" (21 of 127
// cancels at the site): only a job squeue lists as alive is cancelled.
TEST_F(SlurmExecutorTest, AJobSlurmNoLongerListsIsNeverCancelled) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1), id));
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  ASSERT_TRUE(state_->Cancel(id, now_ms_).ok());
  slurm_.jobs.erase(slurm_id);  // gone from squeue (MinJobAge) before the stop
  for (int i = 0; i < 15; ++i) {
    now_ms_ += 1000;
    Step();
  }
  EXPECT_TRUE(slurm_.actions.empty()) << absl::StrJoin(slurm_.actions, "; ");
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_CANCELLED);
  EXPECT_TRUE(state_->ListNodes(now_ms_)[0].jobs().empty()) << "its end was told (gone from Slurm's queue)";
}

TEST_F(SlurmExecutorTest, ALeaseBecomesOneSbatchOnItsNodeAsItsOwner) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1, "res18", 1000), id));
  ASSERT_EQ(slurm_.submitted.size(), 1u);
  const std::string argv = absl::StrJoin(slurm_.submitted[0].argv, " ");
  EXPECT_THAT(argv, HasSubstr("--nodelist=sn1"));
  EXPECT_THAT(argv, HasSubstr(absl::StrCat("--uid=", kAliceUid)));
  EXPECT_THAT(argv, HasSubstr(absl::StrCat("--gid=", kAliceUid)));
  EXPECT_THAT(argv, HasSubstr("--output=/tmp/synergy-slurm-logs/alice/sn1/"));
  EXPECT_EQ(folders_made_, std::vector<std::string>{"/tmp/synergy-slurm-logs alice 1000:1000 sn1"});
  EXPECT_THAT(argv, HasSubstr(absl::StrCat("--job-name=synergy-", id, "-", EpochOf(id))));
  EXPECT_THAT(argv, HasSubstr("--gres=gpu:1"));
  EXPECT_THAT(slurm_.submitted[0].script, HasSubstr("SYNERGY_AGENT_TOKEN="));
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_RUNNING);
  for (int i = 0; i < 5; ++i) {
    now_ms_ += 1000;
    Step();
  }
  EXPECT_EQ(slurm_.submitted.size(), 1u) << "a lease is submitted once";
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(executor_->SlurmJobOf(id, EpochOf(id)), slurm_.JobOf(id, EpochOf(id)));
}

TEST_F(SlurmExecutorTest, ASubmissionWhoseAnswerWasLostIsFoundByNameNotSubmittedAgain) {
  slurm_.nodes = {{"sn1"}};
  Start();
  Step();
  const std::string id = *state_->Submit(Spec(1, "res18", 1000), "alice", now_ms_);
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  slurm_.lose_next_answer = true;
  Step();
  ASSERT_EQ(slurm_.submitted.size(), 1u);
  EXPECT_FALSE(executor_->SlurmJobOf(id, EpochOf(id)).has_value()) << "sbatch did not say which job";
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(slurm_.submitted.size(), 1u);
  EXPECT_EQ(executor_->SlurmJobOf(id, EpochOf(id)), slurm_.JobOf(id, EpochOf(id)));
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_RUNNING);
}

TEST_F(SlurmExecutorTest, AfterARestartTheExecutorKnowsItsJobsByNameAndSubmitsNothing) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1, "res18", 1000), id));
  ASSERT_EQ(slurm_.submitted.size(), 1u);
  const int64_t epoch = EpochOf(id);
  // synergyd killed and restarted: its state from the store, a new executor.
  now_ms_ += 2000;
  Restart();
  for (int i = 0; i < 3; ++i) {
    Step();
    now_ms_ += 1000;
  }
  EXPECT_EQ(slurm_.submitted.size(), 1u) << "nothing runs twice";
  EXPECT_EQ(EpochOf(id), epoch) << "the lease was re-adopted from Slurm's job of its name";
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_RUNNING);
  EXPECT_TRUE(slurm_.actions.empty()) << "nothing was stopped";
}

TEST_F(SlurmExecutorTest, AnExitIsToldOnceWithItsCodeAndACrashIsRetried) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1, "res18", 1000), id));
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  slurm_.jobs[slurm_id].state = "FAILED";
  slurm_.jobs[slurm_id].wait_status = 7 << 8;
  now_ms_ += 1000;
  Step();
  v1::Job job = *state_->GetJob(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_QUEUED);
  EXPECT_EQ(job.crashes(), 1);
  EXPECT_THAT(job.reason(), HasSubstr("exited with status 7"));
  // Slurm lists the ended job for a while: told once only.
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(state_->GetJob(id)->crashes(), 1);
}

TEST_F(SlurmExecutorTest, AStopIsTermNowThenACancelOnceTheGraceHasPassed) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1), id));  // no agent: stopped at lease end
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  ASSERT_NE(slurm_id, 0);
  ASSERT_TRUE(state_->Cancel(id, now_ms_).ok());
  now_ms_ += 100;
  Step();
  ASSERT_EQ(slurm_.actions, std::vector<std::string>{absl::StrCat("TERM ", slurm_id)});
  now_ms_ += 1000;  // within lease_grace_s (2 s)
  Step();
  EXPECT_EQ(slurm_.actions.size(), 1u);
  now_ms_ += 1500;
  Step();
  ASSERT_EQ(slurm_.actions.size(), 2u);
  EXPECT_EQ(slurm_.actions[1], absl::StrCat("cancel ", slurm_id));
  now_ms_ += 100;
  Step();  // Slurm lists it CANCELLED: over
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_CANCELLED);
  EXPECT_TRUE(state_->ListNodes(now_ms_)[0].jobs().empty());
}

// Item 6 of the site review: a lease whose Slurm job waits in Slurm's queue
// showed as running, its time held counting. It is queued: not launched, no
// time held, not ordered again, and its job says where it waits.
TEST_F(SlurmExecutorTest, ALeaseWaitingInSlurmsQueueIsQueuedNotRunning) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1, "res18", 1000), id));
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  slurm_.jobs[slurm_id].state = "PENDING";
  for (int i = 0; i < 20; ++i) {  // twice the orders that would withdraw a lease never reported
    now_ms_ += 1000;
    Step();
  }
  v1::Job job = *state_->GetJob(id);
  EXPECT_EQ(job.first_launch_unix_ms(), 0) << "not launched while it waits";
  EXPECT_THAT(job.reason(), HasSubstr("waits in sn1's queue"));
  EXPECT_EQ(slurm_.submitted.size(), 1u);
  EXPECT_TRUE(job.has_lease()) << "a queued lease is not withdrawn";
  slurm_.jobs[slurm_id].state = "RUNNING";
  now_ms_ += 1000;
  Step();
  job = *state_->GetJob(id);
  EXPECT_EQ(job.first_launch_unix_ms(), now_ms_) << "launched when Slurm runs it";
  EXPECT_THAT(job.reason(), HasSubstr("running under lease"));
}

TEST_F(SlurmExecutorTest, AWaitingJobThatIsStoppedIsCancelledAtOnce) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1), id));
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  slurm_.jobs[slurm_id].state = "PENDING";
  ASSERT_TRUE(state_->Cancel(id, now_ms_).ok());
  now_ms_ += 100;
  Step();
  EXPECT_EQ(slurm_.actions, std::vector<std::string>{absl::StrCat("cancel ", slurm_id)});
}

TEST_F(SlurmExecutorTest, ANodeThatGoesDownLosesItsLeasesAfterTheHeartbeatTimeout) {
  slurm_.nodes = {{"sn1"}, {"sn2"}};
  Start();
  Step();
  const std::string id = *state_->Submit(Spec(2, "res18", 1000), "alice", now_ms_);
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  Step();
  const std::string node = state_->GetJob(id)->lease().slices(0).node();
  for (auto& n : slurm_.nodes) {
    if (n.name == node) n.state = "down";
  }
  for (int i = 0; i < 4; ++i) {  // past heartbeat_timeout_s (3 s)
    now_ms_ += 1000;
    Step();
    ASSERT_TRUE(state_->Tick(now_ms_).ok());
  }
  v1::Job job = *state_->GetJob(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_QUEUED);
  EXPECT_THAT(job.reason(), HasSubstr("lost"));
  EXPECT_EQ(job.crashes(), 0) << "a lost node is not the job's crash";
}

TEST_F(SlurmExecutorTest, ADrainedNodeLeavesItsLeasesEndAndNothingNewGoesThere) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1), id));
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  slurm_.nodes[0].flags = R"("DRAIN")";
  now_ms_ += 100;
  Step();  // leaving: its lease ends
  now_ms_ += 100;
  Step();  // the stop order is carried out
  EXPECT_EQ(slurm_.actions, std::vector<std::string>{absl::StrCat("TERM ", slurm_id)});
  slurm_.jobs[slurm_id].state = "CANCELLED";
  slurm_.jobs[slurm_id].wait_status = 15;
  now_ms_ += 100;
  Step();
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_SUSPENDED) << "waits for its next lease";
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  EXPECT_FALSE(state_->GetJob(id)->has_lease()) << "nothing is placed on a drained node";
  // Slurm lists the ended job for MinJobAge: the drained node is not
  // registered again for it (it was, every step, to leave again).
  const int registered = endpoint_->registrations;
  for (int i = 0; i < 5; ++i) {
    now_ms_ += 1000;
    Step();
  }
  EXPECT_EQ(endpoint_->registrations, registered);
}

TEST_F(SlurmExecutorTest, AJobNamedAsALeaseButRunByAnotherUidIsNotSynergyds) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1), id));
  const int64_t epoch = EpochOf(id);
  const int64_t real = slurm_.JobOf(id, epoch);
  // Slurm lists, in place of the lease's job, another user's job of the
  // same name that says it failed.
  slurm_.jobs.erase(real);
  slurm_.jobs[500] = ScriptedSlurm::Job{500, 1001, slurm::SlurmJobName(id, epoch), "FAILED", 1 << 8, "sn1"};
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_RUNNING) << "the forged exit was not believed";
  EXPECT_EQ(state_->GetJob(id)->crashes(), 0);
}

TEST_F(SlurmExecutorTest, AnOwnerWithoutAnAccountIsRefusedAndTheJobFailsAtOnce) {
  slurm_.nodes = {{"sn1"}};
  Start();
  Step();
  const std::string id = *state_->Submit(Spec(1), "mallory", now_ms_);
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  Step();
  EXPECT_TRUE(slurm_.submitted.empty());
  now_ms_ += 1000;
  Step();  // the refusal goes out with the next heartbeat
  v1::Job job = *state_->GetJob(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_THAT(job.reason(), HasSubstr("no local account"));
}

TEST_F(SlurmExecutorTest, ASubmissionSlurmRefusesIsACrashAndIsRetried) {
  slurm_.nodes = {{"sn1"}};
  Start();
  Step();
  const std::string id = *state_->Submit(Spec(1), "alice", now_ms_);
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  slurm_.refuse_next = true;
  Step();
  now_ms_ += 1000;
  Step();
  v1::Job job = *state_->GetJob(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_QUEUED);
  EXPECT_EQ(job.crashes(), 1);
  EXPECT_THAT(job.reason(), HasSubstr("Requested node configuration is not available"));
}

TEST_F(SlurmExecutorTest, AJobThatVanishesFromSlurmIsToldAsAnExit) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1), id));
  slurm_.jobs.clear();  // purged without our seeing it end
  now_ms_ += 5000;
  Step();
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_RUNNING) << "a job just submitted may be listed late";
  now_ms_ += 6000;
  Step();
  now_ms_ += 1000;
  Step();
  v1::Job job = *state_->GetJob(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_QUEUED);
  EXPECT_THAT(job.reason(), HasSubstr("gone from Slurm"));
}

TEST_F(SlurmExecutorTest, AnUnreadableSlurmSendsNothing) {
  slurm_.nodes = {{"sn1"}};
  Start();
  slurm_.unreadable = true;
  EXPECT_FALSE(executor_->Step(now_ms_).ok());
  EXPECT_TRUE(state_->ListNodes(now_ms_).empty());
}

TEST_F(SlurmExecutorTest, ALeaseWhoseJobSlurmForgotDuringARestartIsNeverSubmittedAgain) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1, "res18", 1000), id));
  ASSERT_EQ(slurm_.submitted.size(), 1u);
  const int64_t epoch = EpochOf(id);
  // It ran and ended while synergyd was away, and Slurm purged it.
  slurm_.jobs.clear();
  now_ms_ += 400000;
  Restart();
  for (int i = 0; i < 5; ++i) {
    Step();
    ASSERT_TRUE(state_->Tick(now_ms_).ok());
    now_ms_ += 1000;
  }
  int of_lease = 0;
  for (const slurm::SbatchCall& call : slurm_.submitted) {
    of_lease += std::count(call.argv.begin(), call.argv.end(), "--job-name=" + slurm::SlurmJobName(id, epoch));
  }
  EXPECT_EQ(of_lease, 1) << "never the same lease twice";
  EXPECT_FALSE(state_->GetJob(id)->has_lease() && EpochOf(id) == epoch) << "its lease is over, not relaunched";
}

TEST_F(SlurmExecutorTest, AJobThatShowsUpAfterItsSubmissionWasGivenUpOnIsStopped) {
  slurm_.nodes = {{"sn1"}};
  Start();
  Step();
  const std::string id = *state_->Submit(Spec(1), "alice", now_ms_);
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  const int64_t epoch = EpochOf(id);
  slurm_.lose_next_answer = true;
  slurm_.hide_lost = true;
  Step();
  now_ms_ += 11000;  // past submit_visible_ms: the launch counts as not made
  Step();
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(state_->GetJob(id)->crashes(), 1);
  // Slurm had it after all.
  slurm_.jobs.insert(slurm_.hidden.begin(), slurm_.hidden.end());
  const int64_t late = slurm_.hidden.begin()->first;
  now_ms_ += 1000;
  Step();  // reported; synergyd holds no lease for it: a stop
  now_ms_ += 1000;
  Step();
  ASSERT_FALSE(slurm_.actions.empty()) << "the late job of lease " << epoch << " was left running";
  EXPECT_THAT(slurm_.actions.front(), ::testing::EndsWith(absl::StrCat(" ", late)));
}

TEST_F(SlurmExecutorTest, ANodeFailureIsNoSuccessButTheJobWaitsForAnotherLease) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1, "res18", 1000), id));
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  slurm_.jobs[slurm_id].state = "NODE_FAIL";  // Slurm writes 0:0
  now_ms_ += 1000;
  Step();
  v1::Job job = *state_->GetJob(id);
  EXPECT_NE(job.state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_FALSE(job.has_lease());
  EXPECT_EQ(job.crashes(), 0) << "a failed node is not the job's crash";
}

TEST_F(SlurmExecutorTest, AJobSlurmFailedWithoutAnExitCodeIsACrashNotASuccess) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1, "res18", 1000), id));
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  slurm_.jobs[slurm_id].state = "FAILED";  // with 0:0
  now_ms_ += 1000;
  Step();
  v1::Job job = *state_->GetJob(id);
  EXPECT_NE(job.state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(job.crashes(), 1);
}

TEST_F(SlurmExecutorTest, WhileSlurmCannotBeReadNodesAreHeartbeatAsLastSeen) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1, "res18", 1000), id));
  slurm_.unreadable = true;  // slurmctld restarting, past heartbeat_timeout_s (3 s)
  for (int i = 0; i < 6; ++i) {
    now_ms_ += 1000;
    EXPECT_FALSE(executor_->Step(now_ms_).ok());
    ASSERT_TRUE(state_->Tick(now_ms_).ok());
  }
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_RUNNING) << "its node was not lost";
  slurm_.unreadable = false;
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_RUNNING);
  EXPECT_TRUE(slurm_.actions.empty()) << "nothing was stopped";
}

// F6 of the Slurm site review: a job that completed as the round ended its
// lease ran again (106 of 200 short jobs ran 2 to 10 times).
TEST_F(SlurmExecutorTest, AJobThatCompletedAsItsLeaseEndedIsASuccessAndNeverRunsAgain) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1), id));  // a plain job: no agent
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  ASSERT_NE(slurm_id, 0);
  // It completes in Slurm; before squeue shows it, its lease ends.
  slurm_.jobs[slurm_id].state = "COMPLETED";
  slurm_.jobs[slurm_id].end_time = now_ms_ / 1000;
  now_ms_ += 100;
  ASSERT_TRUE(state_->Requeue(id, "admin", now_ms_).ok());
  for (int i = 0; i < 4; ++i) {
    now_ms_ += 1000;
    Step();
    ASSERT_TRUE(state_->Tick(now_ms_).ok());
    ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  }
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_SUCCEEDED) << state_->GetJob(id)->reason();
  EXPECT_EQ(slurm_.submitted.size(), 1u) << "a finished job is never submitted again";
}

TEST_F(SlurmExecutorTest, AJobThatEndedZeroAfterItsTermIsStoppedNotASuccess) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1), id));
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  ASSERT_TRUE(state_->Requeue(id, "admin", now_ms_).ok());
  now_ms_ += 100;
  Step();  // TERM, taken by Slurm
  ASSERT_EQ(slurm_.actions, std::vector<std::string>{absl::StrCat("TERM ", slurm_id)});
  // Its script caught the TERM and exited 0, two seconds later.
  slurm_.jobs[slurm_id].state = "COMPLETED";
  slurm_.jobs[slurm_id].end_time = now_ms_ / 1000 + 2;
  now_ms_ += 2500;
  Step();
  EXPECT_NE(StateOf(id), v1::JOB_STATE_SUCCEEDED) << "stopped by its lease's end, it has not finished";
  EXPECT_EQ(state_->GetJob(id)->crashes(), 0);
}

// F4: 22.05's sinfo and squeue exit 0 with an "errors" list and empty lists
// while slurmctld is down; read as "no nodes, no jobs" every job was lost.
TEST_F(SlurmExecutorTest, SlurmReportingErrorsIsUnreadableNotAnEmptyCluster) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1, "res18", 1000), id));
  slurm_.errors_reply = true;  // 45 s of a slurmctld outage, past heartbeat_timeout_s (3 s)
  for (int i = 0; i < 45; ++i) {
    now_ms_ += 1000;
    absl::Status st = executor_->Step(now_ms_);
    EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(std::string(st.message()), HasSubstr("Unable to contact slurm controller"));
    ASSERT_TRUE(state_->Tick(now_ms_).ok());
    ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  }
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_RUNNING) << "its node was not lost";
  slurm_.errors_reply = false;
  for (int i = 0; i < 3; ++i) {
    now_ms_ += 1000;
    Step();
    ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  }
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_RUNNING);
  EXPECT_TRUE(slurm_.actions.empty()) << "nothing was stopped or cancelled";
  EXPECT_EQ(slurm_.submitted.size(), 1u);
}

TEST_F(SlurmExecutorTest, ADrainedNodeFoundAfterARestartLeavesToo) {
  slurm_.nodes = {{"sn1"}, {"sn2"}};
  Start();
  Step();
  const std::string id = *state_->Submit(Spec(1), "alice", now_ms_);
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  Step();
  const std::string node = state_->GetJob(id)->lease().slices(0).node();
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  for (auto& n : slurm_.nodes) {
    if (n.name == node) n.flags = R"("DRAIN")";
  }
  now_ms_ += 1000;
  Restart();
  Step();
  Step();
  EXPECT_EQ(slurm_.actions, std::vector<std::string>{absl::StrCat("TERM ", slurm_id)})
      << "its lease ended: the drained node was served to leave";
}

TEST_F(SlurmExecutorTest, AJobThatWaitsInSlurmTooLongIsCancelled) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(SubmitOneToSlurm(Spec(1), id));
  const int64_t slurm_id = slurm_.JobOf(id, EpochOf(id));
  slurm_.jobs[slurm_id].state = "PENDING";
  now_ms_ += 301000;
  Step();
  EXPECT_EQ(slurm_.actions, std::vector<std::string>{absl::StrCat("cancel ", slurm_id)});
}

TEST_F(SlurmExecutorTest, ALeaseLikeNameNoJobIdCouldHaveDoesNotSilenceTheNode) {
  slurm_.nodes = {{"sn1"}};
  Start();
  Step();
  ScriptedSlurm::Job renamed{7, kAliceUid, "synergy-a b-1", "RUNNING", 0, "sn1"};
  slurm_.jobs[7] = renamed;
  for (int i = 0; i < 5; ++i) {
    now_ms_ += 1000;
    Step();
    ASSERT_TRUE(state_->Tick(now_ms_).ok());
  }
  ASSERT_EQ(state_->ListNodes(now_ms_).size(), 1u);
  EXPECT_TRUE(state_->ListNodes(now_ms_)[0].alive()) << "its heartbeats were taken";
}

// The same cluster registered by synergy-node processes and by the Slurm
// executor: every round plans the same leases (the executor changes who
// runs them, not what is decided).
// F5: a job another user sbatch'ed onto the partition's node was not
// counted; synergyd placed a lease onto its GPUs, which then waited in
// Slurm's queue.
TEST_F(SlurmExecutorTest, WhatOtherJobsHoldOnANodeIsPlannedAround) {
  slurm_.nodes = {{"sn1"}, {"sn2"}};
  slurm_.nodes[0].foreign = {1, 2, 4096};  // another partition's job on sn1
  Start();
  Step();
  v1::Node sn1 = state_->ListNodes(now_ms_)[0];
  EXPECT_EQ(sn1.foreign().gpus(), 1);
  EXPECT_EQ(sn1.foreign().cpus(), 2);
  EXPECT_DOUBLE_EQ(sn1.foreign().mem_gb(), 4);
  // Two 2-GPU jobs: only sn2 has two GPUs free; the second waits.
  const std::string a = *state_->Submit(Spec(2, "res18", 1000), "alice", now_ms_);
  const std::string b = *state_->Submit(Spec(2, "res18", 1000), "alice", now_ms_);
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  Step();
  ASSERT_EQ(slurm_.submitted.size(), 1u) << "one 2-GPU lease fits beside the foreign job";
  EXPECT_THAT(absl::StrJoin(slurm_.submitted[0].argv, " "), HasSubstr("--nodelist=sn2"));
  EXPECT_EQ(StateOf(a), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(StateOf(b), v1::JOB_STATE_QUEUED);
  // Our own lease's job on sn2 is not foreign there.
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(state_->ListNodes(now_ms_)[1].foreign().gpus(), 0);
  // The foreign job ends: what it held is free once two reads agree.
  slurm_.nodes[0].foreign = {};
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(state_->ListNodes(now_ms_)[0].foreign().gpus(), 1) << "one read that it shrank is not enough";
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(state_->ListNodes(now_ms_)[0].foreign().gpus(), 0);
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  Step();
  EXPECT_EQ(StateOf(b), v1::JOB_STATE_RUNNING);
  EXPECT_THAT(absl::StrJoin(slurm_.submitted.back().argv, " "), HasSubstr("--nodelist=sn1"));
}

// A job of ours that starts between the sinfo and the squeue of one read
// is in Slurm's allocation but not yet in our list (or the reverse): it
// never makes the node look freer than it is.
TEST_F(SlurmExecutorTest, AForeignShareThatShrinksForOneReadOnlyIsStillCounted) {
  slurm_.nodes = {{"sn1"}};
  slurm_.nodes[0].foreign = {2, 2, 1024};
  Start();
  Step();
  slurm_.nodes[0].foreign = {1, 1, 512};
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(state_->ListNodes(now_ms_)[0].foreign().gpus(), 2);
  slurm_.nodes[0].foreign = {2, 2, 1024};
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(state_->ListNodes(now_ms_)[0].foreign().gpus(), 2);
  const std::string id = *state_->Submit(Spec(1, "res18", 1000), "alice", now_ms_);
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  Step();
  EXPECT_NE(StateOf(id), v1::JOB_STATE_RUNNING) << "no GPU of sn1 is free";
  EXPECT_TRUE(slurm_.submitted.empty());
}

// Item 7 of the site review: squeue and sinfo ran every step (about once a
// second) whatever happened. Now: while nothing is in flight, once per
// read interval; orders, submissions and stops make the next steps read.
TEST_F(SlurmExecutorTest, SlurmIsReadOncePerIntervalAndAtOnceWhileSomethingIsInFlight) {
  read_interval_ms_ = 10000;
  slurm_.nodes = {{"sn1"}};
  Start();
  Step();
  const int first = slurm_.squeue_calls;
  for (int i = 0; i < 5; ++i) {
    now_ms_ += 1000;
    Step();
  }
  EXPECT_EQ(slurm_.squeue_calls, first) << "nothing in flight: Slurm is not read again within the interval";
  EXPECT_EQ(state_->ListNodes(now_ms_)[0].alive(), true) << "the node is heartbeat all the same";
  const std::string id = *state_->Submit(Spec(1, "res18", 1000), "alice", now_ms_);
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  now_ms_ += 1000;
  Step();  // its launch order: submitted
  ASSERT_EQ(slurm_.submitted.size(), 1u);
  const int at_submit = slurm_.squeue_calls;
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(slurm_.squeue_calls, at_submit + 1) << "a submission not yet running is looked for at once";
  // It runs: nothing in flight any more.
  for (int i = 0; i < 3; ++i) {
    now_ms_ += 1000;
    Step();
  }
  const int running = slurm_.squeue_calls;
  // Its own end is seen at the next interval's read, and told.
  slurm_.jobs[slurm_.JobOf(id, EpochOf(id))].state = "COMPLETED";
  now_ms_ += 1000;
  Step();
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_RUNNING) << "not read yet";
  now_ms_ += 10000;
  Step();
  EXPECT_GT(slurm_.squeue_calls, running);
  EXPECT_EQ(StateOf(id), v1::JOB_STATE_SUCCEEDED);
}

// sbatch runs with --export=NONE: the site's job_env is how PYTHONPATH
// reaches every job (the unmodified image-agent.yaml failed without it);
// a spec's own value wins.
TEST_F(SlurmExecutorTest, TheSitesJobEnvReachesEveryJobUnlessItsSpecSetsIt) {
  default_env_ = {{"PYTHONPATH", "/opt/site/python"}, {"DATA_ROOT", "/shared/data"}};
  slurm_.nodes = {{"sn1"}};
  Start();
  Step();
  v1::JobSpec spec = Spec(1, "res18", 1000);
  (*spec.mutable_env())["DATA_ROOT"] = "/home/alice/data";
  ASSERT_TRUE(state_->Submit(spec, "alice", now_ms_).ok());
  ASSERT_TRUE(state_->RunRound(now_ms_).ok());
  Step();
  ASSERT_EQ(slurm_.submitted.size(), 1u);
  EXPECT_THAT(slurm_.submitted[0].script, HasSubstr("export PYTHONPATH='/opt/site/python'\n"));
  EXPECT_THAT(slurm_.submitted[0].script, HasSubstr("export DATA_ROOT='/home/alice/data'\n"));
  EXPECT_THAT(slurm_.submitted[0].script, ::testing::Not(HasSubstr("/shared/data")));
}

TEST_F(SlurmExecutorTest, TheSamePlanUnderBothExecutors) {
  for (const char* policy : {"las", "fifo"}) {
    for (const char* mechanism : {"tune", "proportional"}) {
      SCOPED_TRACE(absl::StrCat(policy, " ", mechanism));
      config_.policy = policy;
      config_.mechanism = mechanism;
      std::filesystem::remove(config_.state_db);
      slurm_ = ScriptedSlurm();
      slurm_.nodes = {{"sn1"}, {"sn2"}};
      for (auto& n : slurm_.nodes) {
        n.cpus = 8;
        n.memory_mb = 96 * 1024;
        n.gpus = 4;
      }
      Start();
      Step();
      DaemonConfig node_config = config_;
      node_config.state_db = (dir_ / "nodes.db").string();
      std::filesystem::remove(node_config.state_db);
      auto store = SqliteStore::Open(node_config.state_db);
      ASSERT_TRUE(store.ok());
      auto by_nodes = DaemonState::Open(node_config, std::move(*store), testing::ZooOrDie(), 0);
      ASSERT_TRUE(by_nodes.ok());
      AddNode(**by_nodes, "sn1", 4, 8, 96, now_ms_);
      AddNode(**by_nodes, "sn2", 4, 8, 96, now_ms_);
      const std::vector<std::pair<int, std::string>> jobs = {{1, "res18"}, {2, "gnmt"},   {1, "alexnet"},
                                                              {4, "res50"}, {1, "lstm"},   {2, "mobilenet"},
                                                              {1, "res18"}, {1, "transformer"}};
      std::vector<std::string> ids;
      for (const auto& [gpus, model] : jobs) {
        ids.push_back(*state_->Submit(Spec(gpus, model, 1000), "alice", now_ms_));
        ASSERT_EQ(*(*by_nodes)->Submit(Spec(gpus, model, 1000), "alice", now_ms_), ids.back());
      }
      ASSERT_TRUE(state_->RunRound(now_ms_).ok());
      ASSERT_TRUE((*by_nodes)->RunRound(now_ms_).ok());
      int leased = 0;
      for (const std::string& id : ids) {
        const v1::Job a = *state_->GetJob(id);
        const v1::Job b = *(*by_nodes)->GetJob(id);
        ASSERT_EQ(a.has_lease(), b.has_lease()) << id;
        if (!a.has_lease()) continue;
        ++leased;
        ASSERT_EQ(a.lease().slices_size(), b.lease().slices_size()) << id;
        for (int s = 0; s < a.lease().slices_size(); ++s) {
          EXPECT_EQ(a.lease().slices(s).node(), b.lease().slices(s).node()) << id;
          EXPECT_THAT(a.lease().slices(s).gpu_ids(), ::testing::ElementsAreArray(b.lease().slices(s).gpu_ids())) << id;
          EXPECT_THAT(a.lease().slices(s).cpu_ids(), ::testing::ElementsAreArray(b.lease().slices(s).cpu_ids())) << id;
          EXPECT_DOUBLE_EQ(a.lease().slices(s).mem_gb(), b.lease().slices(s).mem_gb()) << id;
        }
      }
      EXPECT_GT(leased, 2);
      executor_.reset();
      endpoint_.reset();
      state_.reset();
    }
  }
}

}  // namespace
}  // namespace synergy::daemon
