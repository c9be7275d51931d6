// synergyd over real gRPC on loopback, in-process (the daemon's threads and
// the clients share this machine's cores):
//  - BM_SubmitJob: durable submissions per second from one client (each
//    one committed to SQLite with synchronous=FULL before the reply);
//    BM_SubmitJobConcurrent: the same from 16 clients at once;
//  - BM_AgentProgress/N: N agents reporting progress once per second each,
//    for 5 s, evenly spread, each report sent when due whatever is still in
//    flight (agents are independent processes); counters give the p50 and
//    p99 latency of a report from when it was due, and the rate achieved;
//  - BM_StatusReadsDuringRounds/N: GetJob and ListJobs latency while rounds
//    of N leased jobs run;
//  - BM_NodeHeartbeats/N: N nodes of 8 running jobs each heartbeating once
//    per second each (p50 and p99 of a heartbeat).
// Rounds run every 0.5 s (BENCH_ROUND_S=seconds to change it), far more
// often than a real cluster's, so that every case meets rounds.
// BENCH_STORE=postgres: the daemon's state on PostgreSQL, a server the bench
// starts as the tests do (tests/unit/test_postgres.h), each case on a
// database of its own; else SQLite.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <thread>

#include "daemon/server/server.h"
#include "service/channel.h"
#include "spdlog/spdlog.h"
#include "synergy/v1/synergy.grpc.pb.h"
#include "test_postgres.h"

namespace synergy::daemon {
namespace {

struct Running {
  std::filesystem::path dir;
  std::unique_ptr<Daemon> daemon;
  std::string address;
};

Running StartDaemon(const std::string& name) {
  spdlog::set_level(spdlog::level::warn);
  Running r;
  r.dir = std::filesystem::temp_directory_path() / ("synergy-bench-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(r.dir);
  std::filesystem::create_directories(r.dir);
  DaemonConfig c;
  c.listen = "127.0.0.1:0";
  c.metrics_listen = "";
  c.state_db = (r.dir / "state.db").string();
  if (const char* store = getenv("BENCH_STORE"); store != nullptr && std::string(store) == "postgres") {
    std::string why;
    testing::TestPostgres* server = testing::TestPostgres::Get(&why);
    if (server == nullptr) {
      std::fprintf(stderr, "BENCH_STORE=postgres: %s\n", why.c_str());
      std::abort();
    }
    std::string db = "bench_" + name;
    std::replace(db.begin(), db.end(), '-', '_');
    c.store_kind = "postgres";
    c.store_dsn = server->NewDatabase(db);
  }
  c.round_s = getenv("BENCH_ROUND_S") ? atof(getenv("BENCH_ROUND_S")) : 0.5;
  c.heartbeat_timeout_s = 600;
  // Loopback plain text, auth off: the bench measures the daemon, not TLS.
  // Agents still carry their lease's credential, as they always must.
  c.tls.plaintext = true;
  c.auth.required = false;
  auto d = Daemon::Start(c);
  if (!d.ok()) std::abort();
  r.daemon = std::move(*d);
  r.address = "127.0.0.1:" + std::to_string(r.daemon->port());
  return r;
}

v1::JobSpec Spec() {
  v1::JobSpec spec;
  spec.set_gpus(1);
  spec.set_model("res18");
  spec.set_iterations(1000000);
  spec.set_uses_agent(true);
  spec.add_command("true");
  return spec;
}

void BM_SubmitJob(benchmark::State& state) {
  Running r = StartDaemon("submit");
  auto stub = v1::SchedulerService::NewStub(grpc::CreateChannel(r.address, grpc::InsecureChannelCredentials()));
  v1::SubmitJobRequest req;
  *req.mutable_spec() = Spec();
  for (auto _ : state) {
    grpc::ClientContext ctx;
    v1::SubmitJobResponse resp;
    if (!stub->SubmitJob(&ctx, req, &resp).ok()) state.SkipWithError("submit failed");
  }
  state.SetItemsProcessed(state.iterations());
  r.daemon->Shutdown();
  std::filesystem::remove_all(r.dir);
}
BENCHMARK(BM_SubmitJob)->Unit(benchmark::kMillisecond)->MinTime(3.0)->UseRealTime();

// Many clients submitting at once: what group commit (one fsync for many
// acknowledgements) is for. Each thread submits as fast as it is answered.
void BM_SubmitJobConcurrent(benchmark::State& state) {
  static Running r;
  if (state.thread_index() == 0) r = StartDaemon("submit-many");
  static std::shared_ptr<grpc::Channel> channel;
  if (state.thread_index() == 0) channel = grpc::CreateChannel(r.address, grpc::InsecureChannelCredentials());
  v1::SubmitJobRequest req;
  *req.mutable_spec() = Spec();
  std::unique_ptr<v1::SchedulerService::Stub> stub;
  for (auto _ : state) {
    // Made in the timed loop: Google Benchmark starts the threads' loops
    // together, after thread 0 has started the daemon.
    if (!stub) stub = v1::SchedulerService::NewStub(channel);
    grpc::ClientContext ctx;
    v1::SubmitJobResponse resp;
    if (!stub->SubmitJob(&ctx, req, &resp).ok()) state.SkipWithError("submit failed");
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    r.daemon->Shutdown();
    std::filesystem::remove_all(r.dir);
  }
}
BENCHMARK(BM_SubmitJobConcurrent)->Threads(16)->Threads(64)->Unit(benchmark::kMillisecond)->MinTime(3.0)->UseRealTime();

// A daemon with `agents` jobs that all hold a lease (on big nodes of at most
// 1,000 GPUs each, within a registration's bounds); the leases by job.
struct Leased {
  Running r;
  std::shared_ptr<grpc::Channel> channel;
  std::vector<std::pair<std::string, int64_t>> leases;
};

std::optional<Leased> StartWithLeasedJobs(const std::string& name, int agents) {
  Leased l;
  l.r = StartDaemon(name);
  l.channel = grpc::CreateChannel(l.r.address, grpc::InsecureChannelCredentials());
  auto sched = v1::SchedulerService::NewStub(l.channel);
  auto node = v1::NodeService::NewStub(l.channel);
  constexpr int kGpusPerNode = 1000;
  for (int first = 0; first < agents; first += kGpusPerNode) {
    const int gpus = std::min(kGpusPerNode, agents - first);
    v1::RegisterNodeRequest reg;
    reg.set_name("big" + std::to_string(first / kGpusPerNode));
    for (int i = 0; i < gpus; ++i) reg.mutable_resources()->add_gpu_ids(i);
    for (int i = 0; i < 12 * gpus; ++i) reg.mutable_resources()->add_cpu_ids(i);
    reg.mutable_resources()->set_mem_gb(125.0 * gpus);
    grpc::ClientContext ctx;
    v1::RegisterNodeResponse resp;
    node->RegisterNode(&ctx, reg, &resp);
  }
  v1::SubmitJobRequest req;
  *req.mutable_spec() = Spec();
  for (int i = 0; i < agents; ++i) {
    grpc::ClientContext ctx;
    v1::SubmitJobResponse resp;
    sched->SubmitJob(&ctx, req, &resp);
  }
  // Every node takes its launch orders and reports them running (a lease
  // is not launched until its node confirms it) until every job runs.
  std::vector<v1::HeartbeatRequest> beats((agents + kGpusPerNode - 1) / kGpusPerNode);
  for (size_t n = 0; n < beats.size(); ++n) beats[n].set_name("big" + std::to_string(n));
  for (int attempt = 0; attempt < 300 && static_cast<int>(l.leases.size()) < agents; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    for (v1::HeartbeatRequest& beat : beats) {
      grpc::ClientContext ctx;
      v1::HeartbeatResponse resp;
      node->Heartbeat(&ctx, beat, &resp);
      for (const v1::LaunchOrder& launch : resp.launch()) {
        v1::RunningProcess* p = beat.add_running();
        p->set_job_id(launch.job_id());
        p->set_epoch(launch.epoch());
        l.leases.emplace_back(launch.job_id(), launch.epoch());
      }
    }
  }
  if (static_cast<int>(l.leases.size()) < agents) return std::nullopt;
  return l;
}

double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double Percentile(std::vector<double>& sorted_ms, double p) {
  return sorted_ms.empty() ? 0 : sorted_ms[static_cast<size_t>(p * (sorted_ms.size() - 1))];
}

void BM_AgentProgress(benchmark::State& state) {
  const int agents = static_cast<int>(state.range(0));
  auto leased = StartWithLeasedJobs("progress", agents);
  if (!leased) {
    state.SkipWithError("not every job got a lease");
    return;
  }
  Running& r = leased->r;
  auto& channel = leased->channel;
  auto& leases = leased->leases;
  std::vector<std::string> credentials;
  for (const auto& [job, epoch] : leases) credentials.push_back(r.daemon->authenticator().LeaseCredential(job, epoch));
  constexpr double kSeconds = 5.0;
  std::vector<double> latencies_ms;
  int64_t refused = 0;
  for (auto _ : state) {
    // Agents are independent processes: one does not wait for another's
    // reply. So reports leave when due, whatever is still in flight (async
    // calls on one completion queue), and each one's latency runs from when
    // it was due to its reply.
    struct Call {
      std::chrono::steady_clock::time_point due;
      grpc::ClientContext ctx;
      v1::ProgressReply reply;
      grpc::Status status;
      std::unique_ptr<grpc::ClientAsyncResponseReader<v1::ProgressReply>> rpc;
    };
    grpc::CompletionQueue cq;
    auto stub = v1::AgentService::NewStub(channel);
    const int64_t total = static_cast<int64_t>(agents * kSeconds);
    std::thread replies([&] {
      void* tag = nullptr;
      bool ok = false;
      for (int64_t done = 0; done < total && cq.Next(&tag, &ok); ++done) {
        std::unique_ptr<Call> call(static_cast<Call*>(tag));
        latencies_ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - call->due).count());
        if (!ok || !call->status.ok()) ++refused;
      }
    });
    const double cpu_before_s = ProcessCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    for (int64_t sent = 0; sent < total; ++sent) {
      // Agent a reports at a/agents of each second, 1 Hz each.
      auto call = std::make_unique<Call>();
      call->due = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(static_cast<double>(sent) / agents));
      std::this_thread::sleep_until(call->due);
      const size_t a = static_cast<size_t>(sent % agents);
      const auto& [job, epoch] = leases[a];
      v1::ProgressReport report;
      report.set_job_id(job);
      report.set_epoch(epoch);
      report.set_iterations_done(sent / agents);
      report.set_throughput(10);
      service::AttachCredential(call->ctx, credentials[a]);
      call->rpc = stub->AsyncReportProgress(&call->ctx, report, &cq);
      Call* tag = call.release();
      tag->rpc->Finish(&tag->reply, &tag->status, tag);
    }
    replies.join();
    // Daemon and clients together: near 2 on this machine is saturation.
    state.counters["cpu_cores"] =
        (ProcessCpuSeconds() - cpu_before_s) /
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cq.Shutdown();
    void* tag = nullptr;
    bool ok = false;
    while (cq.Next(&tag, &ok)) {
    }
  }
  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto pct = [&](double p) { return Percentile(latencies_ms, p); };
  state.counters["agents"] = agents;
  state.counters["reports"] = static_cast<double>(latencies_ms.size());
  state.counters["reports_per_s"] = latencies_ms.size() / kSeconds;
  state.counters["p50_ms"] = pct(0.5);
  state.counters["p99_ms"] = pct(0.99);
  state.counters["max_ms"] = latencies_ms.back();
  state.counters["refused"] = static_cast<double>(refused);
  r.daemon->Shutdown();
  std::filesystem::remove_all(r.dir);
}
BENCHMARK(BM_AgentProgress)->Arg(250)->Arg(1000)->Arg(2000)->Arg(10000)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// Status reads while rounds of N leased jobs run (every 0.5 s): one client
// reads one job (GetJob) and another lists every job (ListJobs, N jobs in
// the reply) back to back for 5 s. The rounds plan without the daemon's
// lock, so a read waits at most for a round's apply, not its planning.
void BM_StatusReadsDuringRounds(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  auto leased = StartWithLeasedJobs("reads", jobs);
  if (!leased) {
    state.SkipWithError("not every job got a lease");
    return;
  }
  constexpr double kSeconds = 5.0;
  std::vector<double> get_ms, list_ms;
  double round_ms = 0;
  for (auto _ : state) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(kSeconds));
    auto time = [&](std::vector<double>& into, auto call) {
      auto stub = v1::SchedulerService::NewStub(leased->channel);
      while (std::chrono::steady_clock::now() < end) {
        const auto start = std::chrono::steady_clock::now();
        call(*stub);
        into.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      }
    };
    std::thread getter([&] {
      time(get_ms, [&](v1::SchedulerService::Stub& stub) {
        grpc::ClientContext ctx;
        v1::GetJobRequest req;
        req.set_job_id(leased->leases[get_ms.size() % leased->leases.size()].first);
        v1::Job job;
        stub.GetJob(&ctx, req, &job);
      });
    });
    std::thread lister([&] {
      time(list_ms, [&](v1::SchedulerService::Stub& stub) {
        grpc::ClientContext ctx;
        v1::ListJobsResponse resp;
        stub.ListJobs(&ctx, v1::ListJobsRequest{}, &resp);
      });
    });
    getter.join();
    lister.join();
    auto stub = v1::SchedulerService::NewStub(leased->channel);
    grpc::ClientContext ctx;
    v1::ClusterState cluster;
    stub->GetClusterState(&ctx, v1::ClusterStateRequest{}, &cluster);
    round_ms = cluster.last_round_ms();
  }
  std::sort(get_ms.begin(), get_ms.end());
  std::sort(list_ms.begin(), list_ms.end());
  state.counters["jobs"] = jobs;
  state.counters["get_p50_ms"] = Percentile(get_ms, 0.5);
  state.counters["get_p99_ms"] = Percentile(get_ms, 0.99);
  state.counters["get_max_ms"] = get_ms.empty() ? 0 : get_ms.back();
  state.counters["list_p50_ms"] = Percentile(list_ms, 0.5);
  state.counters["list_p99_ms"] = Percentile(list_ms, 0.99);
  state.counters["last_round_ms"] = round_ms;
  leased->r.daemon->Shutdown();
  std::filesystem::remove_all(leased->r.dir);
}
// Nodes of 8 GPUs heartbeating once per second each, every GPU running a
// job: N nodes, 8N jobs. A heartbeat reports the node's processes and takes
// its orders; its cost must not grow with the cluster's other jobs.
void BM_NodeHeartbeats(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  Running r = StartDaemon("heartbeats");
  auto channel = grpc::CreateChannel(r.address, grpc::InsecureChannelCredentials());
  auto sched = v1::SchedulerService::NewStub(channel);
  auto node = v1::NodeService::NewStub(channel);
  auto name = [](int n) { return "n" + std::to_string(n); };
  for (int n = 0; n < nodes; ++n) {
    v1::RegisterNodeRequest reg;
    reg.set_name(name(n));
    for (int i = 0; i < 8; ++i) reg.mutable_resources()->add_gpu_ids(i);
    for (int i = 0; i < 96; ++i) reg.mutable_resources()->add_cpu_ids(i);
    reg.mutable_resources()->set_mem_gb(1000);
    grpc::ClientContext ctx;
    v1::RegisterNodeResponse resp;
    node->RegisterNode(&ctx, reg, &resp);
  }
  v1::SubmitJobRequest req;
  *req.mutable_spec() = Spec();
  for (int i = 0; i < 8 * nodes; ++i) {
    grpc::ClientContext ctx;
    v1::SubmitJobResponse resp;
    sched->SubmitJob(&ctx, req, &resp);
  }
  // Every node takes its launch orders until every job runs.
  std::vector<v1::HeartbeatRequest> beats(nodes);
  for (int n = 0; n < nodes; ++n) beats[n].set_name(name(n));
  int running = 0;
  for (int attempt = 0; attempt < 300 && running < 8 * nodes; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    for (int n = 0; n < nodes; ++n) {
      grpc::ClientContext ctx;
      v1::HeartbeatResponse resp;
      node->Heartbeat(&ctx, beats[n], &resp);
      for (const v1::LaunchOrder& l : resp.launch()) {
        v1::RunningProcess* p = beats[n].add_running();
        p->set_job_id(l.job_id());
        p->set_epoch(l.epoch());
        ++running;
      }
    }
  }
  if (running < 8 * nodes) {
    state.SkipWithError("not every job was launched");
    return;
  }
  constexpr int kThreads = 4;
  constexpr double kSeconds = 5.0;
  std::vector<double> latencies_ms;
  for (auto _ : state) {
    std::vector<std::vector<double>> per_thread(kThreads);
    std::vector<std::thread> threads;
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        auto stub = v1::NodeService::NewStub(channel);
        std::vector<int> mine;
        for (int n = t; n < nodes; n += kThreads) mine.push_back(n);
        const double period_s = 1.0 / std::max<size_t>(1, mine.size());
        for (int64_t sent = 0;; ++sent) {
          const auto due = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                       std::chrono::duration<double>(sent * period_s + t * period_s / kThreads));
          if (due - start > std::chrono::duration<double>(kSeconds)) break;
          std::this_thread::sleep_until(due);
          grpc::ClientContext ctx;
          v1::HeartbeatResponse resp;
          stub->Heartbeat(&ctx, beats[mine[sent % mine.size()]], &resp);
          per_thread[t].push_back(
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - due).count());
        }
      });
    }
    for (auto& th : threads) th.join();
    for (const auto& v : per_thread) latencies_ms.insert(latencies_ms.end(), v.begin(), v.end());
  }
  std::sort(latencies_ms.begin(), latencies_ms.end());
  state.counters["nodes"] = nodes;
  state.counters["jobs"] = 8 * nodes;
  state.counters["beats_per_s"] = latencies_ms.size() / kSeconds;
  state.counters["p50_ms"] = Percentile(latencies_ms, 0.5);
  state.counters["p99_ms"] = Percentile(latencies_ms, 0.99);
  state.counters["max_ms"] = latencies_ms.empty() ? 0 : latencies_ms.back();
  r.daemon->Shutdown();
  std::filesystem::remove_all(r.dir);
}
BENCHMARK(BM_NodeHeartbeats)->Arg(125)->Arg(1250)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK(BM_StatusReadsDuringRounds)->Arg(10000)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace synergy::daemon
