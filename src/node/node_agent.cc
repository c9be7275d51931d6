#include "node/node_agent.h"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "service/auth.h"
#include "spdlog/spdlog.h"

namespace synergy::node {
namespace {

// A call to synergyd may hang (a connection caught in its restart): give up
// after two heartbeat intervals (1 to 5 s) and try again, so a node is back
// well within the window synergyd gives it to re-adopt its leases.
std::chrono::system_clock::time_point CallDeadline(int interval_ms) {
  return std::chrono::system_clock::now() + std::chrono::milliseconds(std::clamp(2 * interval_ms, 1000, 5000));
}

}  // namespace

NodeAgent::NodeAgent(NodeConfig config, NodeOffer offer, std::unique_ptr<ProcessLauncher> launcher,
                     std::string cgroups)
    : config_(std::move(config)),
      offer_(std::move(offer)),
      launcher_(std::move(launcher)),
      cgroups_(std::move(cgroups)),
      interval_ms_(config_.heartbeat_interval_ms) {
  // Reconnect within a second of synergyd coming back: its leases wait
  // only heartbeat_timeout_s to be re-adopted.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  stub_ = v1::NodeService::NewStub(
      grpc::CreateCustomChannel(config_.scheduler, grpc::InsecureChannelCredentials(), args));
  std::error_code ec;
  std::filesystem::create_directories(config_.log_dir, ec);
}

bool NodeAgent::Register() {
  v1::RegisterNodeRequest req;
  req.set_name(offer_.name);
  req.set_address(config_.address);
  for (int g : offer_.gpu_ids) req.mutable_resources()->add_gpu_ids(g);
  for (int c : offer_.cpu_ids) req.mutable_resources()->add_cpu_ids(c);
  req.mutable_resources()->set_mem_gb(offer_.memory_gb);
  req.mutable_resources()->set_gpus_declared(offer_.gpus_declared);
  req.set_cgroups(cgroups_);
  for (const ProcessLauncher::Running& r : launcher_->running()) {
    v1::RunningProcess* p = req.add_running();
    p->set_job_id(r.job_id);
    p->set_epoch(r.epoch);
    p->set_pid(r.pid);
  }
  grpc::ClientContext ctx;
  ctx.set_deadline(CallDeadline(interval_ms_));
  service::AttachToken(ctx, config_.token);
  v1::RegisterNodeResponse resp;
  const grpc::Status st = stub_->RegisterNode(&ctx, req, &resp);
  if (!st.ok()) {
    if (!unreachable_) {
      spdlog::warn("node {}: cannot register with {}: {} (retrying; jobs keep running)", offer_.name,
                   config_.scheduler, st.error_message());
    }
    unreachable_ = true;
    return false;
  }
  if (unreachable_) spdlog::info("node {}: {} reachable again", offer_.name, config_.scheduler);
  unreachable_ = false;
  registered_ = true;
  if (resp.heartbeat_interval_ms() > 0) interval_ms_ = static_cast<int>(resp.heartbeat_interval_ms());
  spdlog::info("node {}: registered with {} ({} GPUs{}, {} CPUs{}, {:.1f} GB; {} running)", offer_.name,
               config_.scheduler, offer_.gpu_ids.size(), offer_.gpus_declared ? " declared" : "",
               offer_.cpu_ids.size(),
               offer_.cores_per_cpu > 0 ? fmt::format(" as slots of {} cores", offer_.shared_cores.size()) : "",
               offer_.memory_gb, req.running_size());
  return true;
}

bool NodeAgent::Step() {
  for (const ProcessExit& e : launcher_->Poll()) {
    v1::ProcessExit x;
    x.set_job_id(e.job_id);
    x.set_epoch(e.epoch);
    x.set_exit_code(e.exit_code);
    x.set_signal(e.signal);
    x.set_stopped_by_node(e.stopped_by_us);
    x.set_reason(e.reason);
    spdlog::info("node {}: {} lease {} {}", offer_.name, e.job_id, e.epoch, e.reason);
    unsent_exits_.push_back(std::move(x));
  }
  if (!registered_ && !Register()) return false;
  v1::HeartbeatRequest req;
  req.set_name(offer_.name);
  for (const ProcessLauncher::Running& r : launcher_->running()) {
    v1::RunningProcess* p = req.add_running();
    p->set_job_id(r.job_id);
    p->set_epoch(r.epoch);
    p->set_pid(r.pid);
  }
  for (const v1::ProcessExit& e : unsent_exits_) *req.add_exits() = e;
  grpc::ClientContext ctx;
  ctx.set_deadline(CallDeadline(interval_ms_));
  service::AttachToken(ctx, config_.token);
  v1::HeartbeatResponse resp;
  const grpc::Status st = stub_->Heartbeat(&ctx, req, &resp);
  if (!st.ok()) {
    if (!unreachable_) {
      spdlog::warn("node {}: heartbeat to {} failed: {} (retrying; jobs keep running)", offer_.name,
                   config_.scheduler, st.error_message());
    }
    unreachable_ = true;
    return false;
  }
  if (unreachable_) spdlog::info("node {}: {} reachable again", offer_.name, config_.scheduler);
  unreachable_ = false;
  if (resp.reregister()) {
    // Exits the daemon has not seen are kept for the first heartbeat after
    // registering: a restarted daemon must learn how its leases ended.
    registered_ = false;
    return Register();
  }
  unsent_exits_.clear();
  Apply(resp);
  return true;
}

void NodeAgent::Apply(const v1::HeartbeatResponse& resp) {
  for (const v1::StopOrder& s : resp.stop()) {
    spdlog::info("node {}: stopping {} lease {} (grace {} ms)", offer_.name, s.job_id(), s.epoch(), s.grace_ms());
    launcher_->Stop(s.job_id(), s.epoch(), std::chrono::milliseconds(s.grace_ms()));
  }
  for (const v1::LaunchOrder& l : resp.launch()) {
    LaunchSpec spec;
    spec.job_id = l.job_id();
    spec.epoch = l.epoch();
    spec.argv.assign(l.command().begin(), l.command().end());
    for (const auto& [k, v] : l.env()) spec.env[k] = v;
    spec.gpu_ids.assign(l.gpu_ids().begin(), l.gpu_ids().end());
    if (offer_.cores_per_cpu > 0) {
      // CPU slots: the job may run on every shared core, for its share of
      // their time.
      spec.cpu_ids = offer_.shared_cores;
      spec.cpu_cores = l.cpu_ids_size() * offer_.cores_per_cpu;
      // What one of its CPUs is worth, for the agent's profiler, which
      // under a profiling lease also sets the CPU time of each point.
      spec.env["SYNERGY_CORES_PER_CPU"] = fmt::format("{}", offer_.cores_per_cpu);
      spec.delegate_cpu_limit = l.env().count("SYNERGY_PROFILING") && l.env().at("SYNERGY_PROFILING") == "1";
    } else {
      spec.cpu_ids.assign(l.cpu_ids().begin(), l.cpu_ids().end());
    }
    spec.mem_bytes = static_cast<int64_t>(l.mem_gb() * 1024.0 * 1024.0 * 1024.0);
    spec.log_dir = config_.log_dir;
    spec.work_dir = config_.work_dir;
    auto pid = launcher_->Launch(spec);
    if (!pid.ok()) {
      spdlog::error("node {}: {} lease {}: {}", offer_.name, l.job_id(), l.epoch(), std::string(pid.status().message()));
      v1::ProcessExit x;
      x.set_job_id(l.job_id());
      x.set_epoch(l.epoch());
      x.set_exit_code(127);
      x.set_reason(std::string(pid.status().message()));
      unsent_exits_.push_back(std::move(x));
      continue;
    }
    spdlog::info("node {}: launched {} lease {} pid {} (gpus {}, {} cpus, {:.1f} GB)", offer_.name, l.job_id(),
                 l.epoch(), *pid, l.gpu_ids_size(), l.cpu_ids_size(), l.mem_gb());
  }
}

void NodeAgent::Run(const std::atomic<bool>& stop) {
  while (!stop) {
    Step();
    for (int waited = 0; waited < interval_ms_ && !stop; waited += 20) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  spdlog::info("node {}: stopping every job process", offer_.name);
  launcher_->StopAll(std::chrono::milliseconds(5000));
}

}  // namespace synergy::node
