// libsynergy_agent against a real synergyd (in-process, gRPC on loopback):
// standalone pass-through, and a lease that ends mid-loop: the loop stops at
// an iteration boundary, the checkpoint callback runs once at that
// iteration, and synergyd records it as the job's resume point.
#include "synergy/agent.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "cpu_time_limit.h"
#include "daemon/server/server.h"
#include "gtest/gtest.h"
#include "spdlog/spdlog.h"
#include "synergy/v1/synergy.grpc.pb.h"

namespace synergy::agent {
namespace {

TEST(Agent, StandaloneIsAPassThrough) {
  unsetenv("SYNERGY_JOB_ID");
  auto agent = Agent::FromEnvironment();
  EXPECT_FALSE(agent->managed());
  std::vector<int> data = {1, 2, 3, 4, 5};
  int sum = 0, n = 0;
  bool called = false;
  agent->OnCheckpoint([&](int64_t) {
    called = true;
    return std::string();
  });
  for (int x : agent->wrap(data)) {
    sum += x;
    ++n;
  }
  EXPECT_EQ(n, 5);
  EXPECT_EQ(sum, 15);
  EXPECT_EQ(agent->iteration(), 5);
  agent->Finish();
  EXPECT_FALSE(called);
  EXPECT_FALSE(agent->lease_ended());
}

class AgentWithDaemon : public ::testing::Test {
 protected:
  void SetUp() override {
    spdlog::set_level(spdlog::level::warn);
    dir_ = std::filesystem::temp_directory_path() / ("synergy-agent-test-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    daemon::DaemonConfig c;
    c.listen = "127.0.0.1:0";
    c.metrics_listen = "";
    c.state_db = (dir_ / "state.db").string();
    c.round_s = 0.3;
    c.policy = "las";
    c.lease_grace_s = 30;
    c.tls.plaintext = true;
    c.auth.required = false;
    auto d = daemon::Daemon::Start(c);
    ASSERT_TRUE(d.ok()) << d.status();
    daemon_ = std::move(*d);
    address_ = "127.0.0.1:" + std::to_string(daemon_->port());
    auto channel = grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
    sched_ = v1::SchedulerService::NewStub(channel);
    node_ = v1::NodeService::NewStub(channel);
    v1::RegisterNodeRequest reg;
    reg.set_name("n1");
    reg.mutable_resources()->add_gpu_ids(0);
    for (int i = 0; i < 3; ++i) reg.mutable_resources()->add_cpu_ids(i);
    reg.mutable_resources()->set_mem_gb(62.5);
    grpc::ClientContext ctx;
    v1::RegisterNodeResponse resp;
    ASSERT_TRUE(node_->RegisterNode(&ctx, reg, &resp).ok());
  }
  void TearDown() override {
    daemon_->Shutdown();
    std::filesystem::remove_all(dir_);
  }
  std::string Submit() {
    v1::SubmitJobRequest req;
    req.mutable_spec()->set_gpus(1);
    req.mutable_spec()->set_model("res18");
    req.mutable_spec()->set_iterations(1000000);
    req.mutable_spec()->set_uses_agent(true);
    req.mutable_spec()->add_command("true");
    grpc::ClientContext ctx;
    v1::SubmitJobResponse resp;
    EXPECT_TRUE(sched_->SubmitJob(&ctx, req, &resp).ok());
    return resp.job_id();
  }
  v1::Job Get(const std::string& id) {
    grpc::ClientContext ctx;
    v1::GetJobRequest req;
    req.set_job_id(id);
    v1::Job job;
    EXPECT_TRUE(sched_->GetJob(&ctx, req, &job).ok());
    return job;
  }
  // Waits (up to 5 s) for a round to grant `id` a lease.
  v1::Job WithLease(const std::string& id) {
    v1::Job job;
    for (int i = 0; i < 50 && !job.has_lease(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      job = Get(id);
    }
    return job;
  }
  // The agent of `job`'s current lease, as a launched process would build
  // it from its environment; it does not exit at lease end.
  std::unique_ptr<Agent> ConnectTo(const v1::Job& job, AgentOptions options = {}) {
    LeaseInfo lease;
    lease.scheduler = address_;
    lease.job_id = job.id();
    lease.epoch = job.lease().epoch();
    lease.plaintext = true;
    lease.credential = daemon_->authenticator().LeaseCredential(job.id(), job.lease().epoch());
    options.exit_on_lease_end = false;
    return Agent::Connect(lease, options);
  }
  // Acts as the node: one heartbeat, returning the launch orders.
  v1::HeartbeatResponse Beat(const std::vector<std::pair<std::string, int64_t>>& running) {
    v1::HeartbeatRequest req;
    req.set_name("n1");
    for (const auto& [job, epoch] : running) {
      v1::RunningProcess* p = req.add_running();
      p->set_job_id(job);
      p->set_epoch(epoch);
    }
    grpc::ClientContext ctx;
    v1::HeartbeatResponse resp;
    EXPECT_TRUE(node_->Heartbeat(&ctx, req, &resp).ok());
    return resp;
  }

  std::filesystem::path dir_;
  std::unique_ptr<daemon::Daemon> daemon_;
  std::string address_;
  std::unique_ptr<v1::SchedulerService::Stub> sched_;
  std::unique_ptr<v1::NodeService::Stub> node_;
};

TEST_F(AgentWithDaemon, StopsAtAnIterationBoundaryWhenTheLeaseEnds) {
  const std::string a = Submit();
  v1::Job job = WithLease(a);
  ASSERT_TRUE(job.has_lease());
  ASSERT_EQ(Beat({}).launch_size(), 1);
  Beat({{a, job.lease().epoch()}});  // launched: the lease counts as running
  AgentOptions options;
  options.report_interval_ms = 20;
  auto agent = ConnectTo(job, options);
  ASSERT_TRUE(agent->managed());
  EXPECT_EQ(agent->start_iteration(), 0);
  EXPECT_EQ(agent->lease().total_iterations, 1000000);
  std::vector<int64_t> saved_at;
  agent->OnCheckpoint([&](int64_t at) {
    saved_at.push_back(at);
    return (dir_ / ("ckpt." + std::to_string(at))).string();
  });
  // A second job: under LAS it takes the GPU at the next round.
  Submit();
  std::vector<int> endless(1 << 20, 1);
  int64_t seen = 0;
  for (int x : agent->wrap(endless)) {
    seen += x;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(agent->lease_ended());
  ASSERT_EQ(saved_at.size(), 1u);
  EXPECT_EQ(saved_at[0], seen);  // every batch the loop saw, and no other
  EXPECT_LT(seen, static_cast<int64_t>(endless.size()));
  job = Get(a);
  EXPECT_EQ(job.checkpoint_iteration(), seen);
  EXPECT_EQ(job.checkpoint_path(), (dir_ / ("ckpt." + std::to_string(seen))).string());
}

TEST_F(AgentWithDaemon, ProfileIsMeasuredAndStoredWithTheJob) {
  const std::string a = Submit();
  v1::Job job = WithLease(a);
  ASSERT_TRUE(job.has_lease());
  auto agent = ConnectTo(job);
  // The lease gives 3 CPU ids; throughput saturates at 2 workers.
  int measured = 0;
  CpuProfile cpu = agent->Profile(
      [&](int cpus, int) {
        ++measured;
        return 10.0 * std::min(cpus, 2);
      },
      MemoryModel{});
  EXPECT_EQ(cpu.knee, 2);
  EXPECT_EQ(measured, static_cast<int>(cpu.measured.size()));
  job = Get(a);
  ASSERT_TRUE(job.has_measured_profile());
  EXPECT_EQ(job.measured_profile().points_size(), 4 * measured);  // x 4 memory points
  EXPECT_GT(job.measured_profile().seconds(), 0);
}

TEST_F(AgentWithDaemon, OnCpuSlotsEachPointGetsItsShareOfCpuTime) {
  // A slot node delegates the job's cgroup limit file (here a plain file
  // named as cgroup v2's): each point of k CPUs runs under k x 0.5 cores of
  // CPU time per period, and the lease's 3 x 0.5 is put back after.
  const std::string a = Submit();
  v1::Job job = WithLease(a);
  ASSERT_TRUE(job.has_lease());
  const std::string file = (dir_ / "cpu.max").string();
  setenv("SYNERGY_CORES_PER_CPU", "0.5", 1);
  setenv("SYNERGY_CPU_LIMIT_FILE", file.c_str(), 1);
  setenv("SYNERGY_CPU_PERIOD_US", "20000", 1);
  auto agent = ConnectTo(job);
  std::map<int, std::string> limit_at;
  CpuProfile cpu = agent->Profile(
      [&](int cpus, int) {
        std::ifstream in(file);
        std::getline(in, limit_at[cpus]);
        return 10.0 * std::min(cpus, 2);
      },
      MemoryModel{});
  unsetenv("SYNERGY_CORES_PER_CPU");
  unsetenv("SYNERGY_CPU_LIMIT_FILE");
  unsetenv("SYNERGY_CPU_PERIOD_US");
  ASSERT_EQ(limit_at.size(), cpu.measured.size());
  for (const auto& [cpus, limit] : limit_at) EXPECT_EQ(limit, std::to_string(cpus * 10000) + " 20000") << cpus;
  std::ifstream in(file);
  std::string after;
  std::getline(in, after);
  EXPECT_EQ(after, "30000 20000");
}

TEST(CpuTimeLimit, WritesTheQuotaInEachCgroupVersionsFormat) {
  const auto dir = std::filesystem::temp_directory_path() / ("synergy-limit-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    std::string s;
    std::getline(in, s);
    return s;
  };
  EXPECT_EQ(CpuTimeLimit((dir / "cpu.max").string(), 20000).Set(1.5), "");
  EXPECT_EQ(read(dir / "cpu.max"), "30000 20000");
  EXPECT_EQ(CpuTimeLimit((dir / "cpu.cfs_quota_us").string(), 20000).Set(0.01), "");
  EXPECT_EQ(read(dir / "cpu.cfs_quota_us"), "1000") << "the kernel's 1 ms floor";
  const std::string problem = CpuTimeLimit((dir / "no/such/cpu.max").string(), 20000).Set(1);
  EXPECT_NE(problem.find("no/such/cpu.max: cannot write the quota 20000"), std::string::npos) << problem;
  EXPECT_FALSE(CpuTimeLimit().available());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace synergy::agent
