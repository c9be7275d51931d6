// The agent's cost per iteration: Agent::Step() on a managed agent (a real
// synergyd in-process, its reporter thread reporting every second) and the
// wrapped loop against the bare loop, standalone.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <numeric>
#include <thread>

#include "daemon/server/server.h"
#include "spdlog/spdlog.h"
#include "synergy/agent.h"
#include "synergy/v1/synergy.grpc.pb.h"

namespace synergy::agent {
namespace {

void BM_BareLoop(benchmark::State& state) {
  std::vector<int> data(4096, 1);
  for (auto _ : state) {
    int64_t sum = 0;
    for (int x : data) sum += x;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * data.size());
}
BENCHMARK(BM_BareLoop);

void BM_WrappedLoopStandalone(benchmark::State& state) {
  unsetenv("SYNERGY_JOB_ID");
  auto agent = Agent::FromEnvironment();
  std::vector<int> data(4096, 1);
  for (auto _ : state) {
    int64_t sum = 0;
    for (int x : agent->wrap(data)) sum += x;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * data.size());
}
BENCHMARK(BM_WrappedLoopStandalone);

void BM_StepManaged(benchmark::State& state) {
  spdlog::set_level(spdlog::level::warn);
  const auto dir = std::filesystem::temp_directory_path() / ("synergy-agent-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  daemon::DaemonConfig c;
  c.listen = "127.0.0.1:0";
  c.metrics_listen = "";
  c.state_db = (dir / "state.db").string();
  c.round_s = 0.2;
  c.tls.plaintext = true;  // loopback: the bench measures the agent, not TLS
  c.auth.required = false;
  auto d = daemon::Daemon::Start(c);
  const std::string address = "127.0.0.1:" + std::to_string((*d)->port());
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto sched = v1::SchedulerService::NewStub(channel);
  auto node = v1::NodeService::NewStub(channel);
  {
    v1::RegisterNodeRequest reg;
    reg.set_name("n1");
    reg.mutable_resources()->add_gpu_ids(0);
    reg.mutable_resources()->add_cpu_ids(0);
    reg.mutable_resources()->set_mem_gb(62.5);
    grpc::ClientContext ctx;
    v1::RegisterNodeResponse resp;
    node->RegisterNode(&ctx, reg, &resp);
    v1::SubmitJobRequest req;
    req.mutable_spec()->set_gpus(1);
    req.mutable_spec()->set_iterations(1000000000000);  // the largest a spec may ask for
    req.mutable_spec()->set_uses_agent(true);
    req.mutable_spec()->add_command("true");
    grpc::ClientContext sctx;
    v1::SubmitJobResponse sresp;
    sched->SubmitJob(&sctx, req, &sresp);
  }
  v1::Job job;
  for (int i = 0; i < 50 && !job.has_lease(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    grpc::ClientContext ctx;
    v1::GetJobRequest req;
    req.set_job_id("j-000001");
    sched->GetJob(&ctx, req, &job);
  }
  LeaseInfo lease;
  lease.scheduler = address;
  lease.job_id = job.id();
  lease.epoch = job.lease().epoch();
  lease.plaintext = true;
  lease.credential = (*d)->authenticator().LeaseCredential(job.id(), job.lease().epoch());
  auto agent = Agent::Connect(lease);
  for (auto _ : state) benchmark::DoNotOptimize(agent->Step());
  state.SetItemsProcessed(state.iterations());
  agent.reset();
  (*d)->Shutdown();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_StepManaged);

}  // namespace
}  // namespace synergy::agent
