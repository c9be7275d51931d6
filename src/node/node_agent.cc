#include "node/node_agent.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "node/job_account.h"
#include "node/job_output.h"
#include "service/auth.h"
#include "service/channel.h"
#include "service/escape.h"
#include "spdlog/spdlog.h"

namespace synergy::node {
namespace {

// A reply from a synergyd that led at `epoch`, older than `newest`: treated
// as unavailable (the node moves on to the next address).
grpc::Status FormerLeader(int64_t epoch, int64_t newest) {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      absl::StrCat("a reply from a former leader (epoch ", epoch, ", older than ", newest,
                                   "): not obeyed"));
}

// A call to synergyd may hang (a connection caught in its restart): give up
// after two heartbeat intervals (1 to 5 s) and try again, so a node is back
// well within the window synergyd gives it to re-adopt its leases.
std::chrono::system_clock::time_point CallDeadline(int interval_ms) {
  return std::chrono::system_clock::now() + std::chrono::milliseconds(std::clamp(2 * interval_ms, 1000, 5000));
}

// An exit's reason as synergyd accepts it (printable, at most 1 KiB): one
// refused reason would otherwise refuse every heartbeat that carries it,
// and the node would be lost.
std::string ReasonForDaemon(absl::string_view reason) { return service::EscapeForDisplay(reason, 160); }

// How a lease's CPU ids confine a process here: the cores themselves, or
// with CPU slots every shared core for the slots' share of their time.
struct CpuConfinement {
  std::vector<int> cpu_ids;
  double cpu_cores = 0;
};
CpuConfinement CpusFor(const NodeOffer& offer, const google::protobuf::RepeatedField<int32_t>& lease_cpu_ids) {
  if (offer.cores_per_cpu > 0) return {offer.shared_cores, lease_cpu_ids.size() * offer.cores_per_cpu};
  return {std::vector<int>(lease_cpu_ids.begin(), lease_cpu_ids.end()), 0};
}

int64_t Bytes(double gb) { return static_cast<int64_t>(gb * 1024.0 * 1024.0 * 1024.0); }

}  // namespace

NodeAgent::NodeAgent(NodeConfig config, NodeOffer offer, std::unique_ptr<ProcessLauncher> launcher,
                     std::string cgroups, std::shared_ptr<grpc::Channel> channel, Connect reconnect,
                     std::unique_ptr<LeaseRecords> records)
    : config_(std::move(config)),
      offer_(std::move(offer)),
      launcher_(std::move(launcher)),
      records_(records ? std::move(records) : std::make_unique<LeaseRecords>("", offer_.name)),
      cgroups_(std::move(cgroups)),
      reconnect_(std::move(reconnect)),
      stub_(v1::NodeService::NewStub(channel)),
      interval_ms_(config_.heartbeat_interval_ms) {
  std::random_device random;
  do {
    incarnation_ = (static_cast<uint64_t>(random()) << 32) ^ random();
  } while (incarnation_ == 0);
  std::error_code ec;
  std::filesystem::create_directories(config_.log_dir, ec);
  if (!config_.credential_file.empty()) {
    std::ifstream in(config_.credential_file);
    std::string kept;
    if (in >> kept) issued_credential_ = kept;
  }
}

void NodeAgent::ReportAtStart(std::vector<v1::ProcessExit> exits) {
  for (v1::ProcessExit& e : exits) unsent_exits_.push_back(std::move(e));
}

std::string NodeAgent::Credential() const {
  if (!config_.token.empty()) return config_.token;
  if (!issued_credential_.empty()) return issued_credential_;
  return config_.join_token;
}

void NodeAgent::KeepIssuedCredential(const std::string& credential) {
  issued_credential_ = credential;
  if (config_.credential_file.empty()) {
    spdlog::warn("node {}: joined; its credential is kept in memory only (set credential_file to keep it "
                 "across restarts)", offer_.name);
    return;
  }
  // Written private, then renamed over, so it is never readable by others
  // nor half-written.
  const std::string tmp = config_.credential_file + ".tmp";
  const mode_t old_mask = ::umask(077);
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << credential << "\n";
  }
  ::umask(old_mask);
  std::error_code ec;
  std::filesystem::rename(tmp, config_.credential_file, ec);
  if (ec) {
    spdlog::error("node {}: cannot keep its credential in {}: {}", offer_.name, config_.credential_file, ec.message());
  } else {
    spdlog::info("node {}: joined; its credential is kept in {}", offer_.name, config_.credential_file);
  }
}

bool NodeAgent::CallFailed(const char* call, const grpc::Status& st) {
  if (!unreachable_) {
    spdlog::warn("node {}: {} with {} failed: {} (retrying; jobs keep running)", offer_.name, call, config_.scheduler,
                 st.error_message());
  }
  spdlog::debug("node {}: {}: {} ({})", offer_.name, call, st.error_message(), static_cast<int>(st.error_code()));
  // Unavailable (down, or a standby) or silent (paused): the next address.
  if (st.error_code() == grpc::StatusCode::UNAVAILABLE || st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    stub_ = v1::NodeService::NewStub(reconnect_());
  }
  unreachable_ = true;
  ++stats_.call_failures;
  return false;
}

bool NodeAgent::FromTheLeader(int64_t epoch) {
  if (epoch >= leader_epoch_) {
    leader_epoch_ = epoch;
    older_epoch_since_.reset();
    return true;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!older_epoch_since_) older_epoch_since_ = now;
  if (now - *older_epoch_since_ < kEpochRegression) return false;
  spdlog::warn("node {}: synergyd's epoch went back from {} to {} for {} s: a new state database? following it",
               offer_.name, leader_epoch_, epoch, kEpochRegression.count());
  leader_epoch_ = epoch;
  older_epoch_since_.reset();
  return true;
}

bool NodeAgent::Register() {
  v1::RegisterNodeRequest req;
  req.set_name(offer_.name);
  req.set_address(config_.address);
  for (int g : offer_.gpu_ids) req.mutable_resources()->add_gpu_ids(g);
  for (int c : offer_.cpu_ids) req.mutable_resources()->add_cpu_ids(c);
  req.mutable_resources()->set_mem_gb(offer_.memory_gb);
  req.mutable_resources()->set_gpus_declared(offer_.gpus_declared);
  req.mutable_resources()->set_gpu_type(offer_.gpu_type);
  req.set_cgroups(cgroups_);
  req.set_incarnation(incarnation_);
  req.set_sequence(++sequence_);
  ReportRunning(*req.mutable_running());
  grpc::ClientContext ctx;
  ctx.set_deadline(CallDeadline(interval_ms_));
  service::AttachCredential(ctx, Credential());
  v1::RegisterNodeResponse resp;
  const grpc::Status st = stub_->RegisterNode(&ctx, req, &resp);
  if (!st.ok()) return CallFailed("registering", st);
  if (!FromTheLeader(resp.leader_epoch())) return CallFailed("registering", FormerLeader(resp.leader_epoch(), leader_epoch_));
  if (unreachable_) spdlog::info("node {}: {} reachable again", offer_.name, config_.scheduler);
  unreachable_ = false;
  stats_.registered = true;
  stats_.last_heartbeat_ok_unix_ms = service::NowUnixMs();
  if (!resp.node_credential().empty()) KeepIssuedCredential(resp.node_credential());
  if (resp.heartbeat_interval_ms() > 0) interval_ms_ = static_cast<int>(resp.heartbeat_interval_ms());
  stats_.heartbeat_interval_ms = interval_ms_;
  if (resp.lease_grace_ms() > 0) lease_grace_ms_ = resp.lease_grace_ms();
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
    x.set_reason(ReasonForDaemon(e.reason));
    spdlog::info("node {}: {} lease {} {}", offer_.name, e.job_id, e.epoch, e.reason);
    unsent_exits_.push_back(std::move(x));
    records_->Forget(e.job_id, e.epoch);
    ++(e.stopped_by_us ? stats_.exits_stopped : e.exit_code == 0 && e.signal == 0 ? stats_.exits_ok : stats_.exits_error);
  }
  stats_.running = static_cast<int64_t>(launcher_->running().size());
  if (!stats_.registered && !Register()) return false;
  v1::HeartbeatRequest req;
  req.set_name(offer_.name);
  req.set_leaving(stats_.leaving);
  req.set_incarnation(incarnation_);
  req.set_sequence(++sequence_);
  ReportRunning(*req.mutable_running());
  for (const v1::ProcessExit& e : unsent_exits_) *req.add_exits() = e;
  grpc::ClientContext ctx;
  ctx.set_deadline(CallDeadline(interval_ms_));
  service::AttachCredential(ctx, Credential());
  v1::HeartbeatResponse resp;
  const grpc::Status st = stub_->Heartbeat(&ctx, req, &resp);
  if (!st.ok()) return CallFailed("heartbeat", st);
  // Nothing of a former leader's reply is obeyed, and the exits it was
  // told of are told again.
  if (!FromTheLeader(resp.leader_epoch())) return CallFailed("heartbeat", FormerLeader(resp.leader_epoch(), leader_epoch_));
  if (unreachable_) spdlog::info("node {}: {} reachable again", offer_.name, config_.scheduler);
  unreachable_ = false;
  ++stats_.heartbeats_ok;
  stats_.last_heartbeat_ok_unix_ms = service::NowUnixMs();
  if (resp.reregister()) {
    // A leaving node the daemon has let go of does not come back.
    if (stats_.leaving) return true;
    // Exits the daemon has not seen are kept for the first heartbeat after
    // registering: a restarted daemon must learn how its leases ended.
    stats_.registered = false;
    return Register();
  }
  unsent_exits_.clear();
  Apply(resp);
  ReturnLogs(resp);
  KeepOutputUnderCap();
  return true;
}

void NodeAgent::ReportRunning(google::protobuf::RepeatedPtrField<v1::RunningProcess>& out) {
  std::map<std::pair<std::string, int64_t>, Applied> still;
  for (const ProcessLauncher::Running& r : launcher_->running()) {
    v1::RunningProcess* p = out.Add();
    p->set_job_id(r.job_id);
    p->set_epoch(r.epoch);
    p->set_pid(r.pid);
    auto a = applied_.find({r.job_id, r.epoch});
    if (a == applied_.end()) continue;
    p->set_revision(a->second.revision);
    p->set_mem_limit_gb(a->second.mem_limit_gb);
    still.insert(*a);
  }
  applied_ = std::move(still);  // exited processes are forgotten
}

void NodeAgent::Resize(const v1::ResizeOrder& order) {
  auto a = applied_.find({order.job_id(), order.epoch()});
  if (a == applied_.end() || order.revision() < a->second.revision) return;  // gone, or an older order
  const CpuConfinement cpus = CpusFor(offer_, order.cpu_ids());
  const bool memory_grows = order.mem_limit_gb() >= a->second.mem_limit_gb;
  absl::Status st = launcher_->Reconfine(order.job_id(), order.epoch(), cpus.cpu_ids, Bytes(order.mem_limit_gb()),
                                         cpus.cpu_cores, memory_grows);
  if (absl::IsNotFound(st)) return;
  if (!st.ok()) {
    // Not reported as applied: synergyd repeats the order (its agent is not
    // told, a lower limit is not taken for done, the old CPU ids stay held).
    if (a->second.failed_revision != order.revision()) {
      spdlog::warn("node {}: resize of {} lease {} to revision {} failed (retried every heartbeat): {}", offer_.name,
                   order.job_id(), order.epoch(), order.revision(), std::string(st.message()));
      a->second.failed_revision = order.revision();
    }
    return;
  }
  spdlog::info("node {}: {} lease {} resized in place (revision {}): {} cpus, memory limit {:.2f} GB", offer_.name,
               order.job_id(), order.epoch(), order.revision(), order.cpu_ids_size(), order.mem_limit_gb());
  a->second = Applied{order.revision(), order.mem_limit_gb(), 0};
  ++stats_.resizes;
}

void NodeAgent::ReturnLogs(const v1::HeartbeatResponse& resp) {
  for (const v1::LogRequest& r : resp.logs()) {
    v1::LogChunk chunk = ReadJobOutput(config_.log_dir, r);
    chunk.set_name(offer_.name);
    grpc::ClientContext ctx;
    // Short: the heartbeat loop waits on it (at most kMaxPerHeartbeat a beat).
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    service::AttachCredential(ctx, Credential());
    v1::LogChunkAck ack;
    // A failure loses only this read: synergyctl asks again.
    if (const grpc::Status st = stub_->ReturnLogs(&ctx, chunk, &ack); !st.ok()) CallFailed("return logs", st);
  }
}

void NodeAgent::KeepOutputUnderCap() {
  std::vector<std::pair<std::string, int64_t>> instances;
  for (const ProcessLauncher::Running& r : launcher_->running()) instances.emplace_back(r.job_id, r.epoch);
  for (const std::string& file : RotateJobOutput(config_.log_dir, instances, config_.log_max_bytes)) {
    spdlog::info("node {}: {} reached log_max_bytes ({}): copied to {}.1 and emptied", offer_.name, file,
                 config_.log_max_bytes, file);
  }
}

void NodeAgent::Apply(const v1::HeartbeatResponse& resp) {
  std::set<std::pair<std::string, int64_t>> stopping;
  for (const ProcessLauncher::Running& r : launcher_->running()) {
    if (r.stopping) stopping.insert({r.job_id, r.epoch});
  }
  for (const v1::StopOrder& s : resp.stop()) {
    // Repeated every heartbeat until the process is gone: said once.
    if (!stopping.count({s.job_id(), s.epoch()})) {
      spdlog::info("node {}: stopping {} lease {} (grace {} ms)", offer_.name, s.job_id(), s.epoch(), s.grace_ms());
      ++stats_.stop_orders;
    }
    launcher_->Stop(s.job_id(), s.epoch(), std::chrono::milliseconds(s.grace_ms()));
  }
  for (const v1::ResizeOrder& r : resp.resize()) Resize(r);
  for (const v1::LaunchOrder& l : resp.launch()) Launch(l);
}

bool NodeAgent::NoteStarted(const std::pair<std::string, int64_t>& lease) {
  if (!started_.insert(lease).second) return false;
  started_order_.push_back(lease);
  if (started_order_.size() > kStartedKept) {
    started_.erase(started_order_.front());
    started_order_.pop_front();
  }
  return true;
}

namespace {

// The exit a launch order gets when its process is not started.
v1::ProcessExit NotLaunched(const v1::LaunchOrder& l, int exit_code, const std::string& reason) {
  v1::ProcessExit x;
  x.set_job_id(l.job_id());
  x.set_epoch(l.epoch());
  x.set_exit_code(exit_code);
  x.set_reason(reason);
  return x;
}

}  // namespace

LaunchSpec NodeAgent::SpecFor(const v1::LaunchOrder& l) const {
  LaunchSpec spec;
  spec.job_id = l.job_id();
  spec.epoch = l.epoch();
  spec.argv.assign(l.command().begin(), l.command().end());
  for (const auto& [k, v] : l.env()) spec.env[k] = v;
  // The agent reaches synergyd the way this node does.
  spec.env["SYNERGY_SCHEDULER"] = config_.scheduler;
  if (config_.plaintext) spec.env["SYNERGY_PLAINTEXT"] = "1";
  if (!config_.tls_ca.empty()) spec.env["SYNERGY_TLS_CA"] = config_.tls_ca;
  if (!config_.tls_server_name.empty()) spec.env["SYNERGY_TLS_SERVER_NAME"] = config_.tls_server_name;
  spec.env_passthrough = config_.job_env_passthrough;
  spec.gpu_ids.assign(l.gpu_ids().begin(), l.gpu_ids().end());
  const CpuConfinement cpus = CpusFor(offer_, l.cpu_ids());
  spec.cpu_ids = cpus.cpu_ids;
  spec.cpu_cores = cpus.cpu_cores;
  if (offer_.cores_per_cpu > 0) {
    // What one of its CPUs is worth, for the agent's profiler, which
    // under a profiling lease also sets the CPU time of each point.
    spec.env["SYNERGY_CORES_PER_CPU"] = fmt::format("{}", offer_.cores_per_cpu);
    spec.delegate_cpu_limit = l.env().count("SYNERGY_PROFILING") && l.env().at("SYNERGY_PROFILING") == "1";
  }
  spec.mem_bytes = Bytes(l.mem_gb());
  spec.log_dir = config_.log_dir;
  spec.work_dir = config_.work_dir;
  return spec;
}

void NodeAgent::Launch(const v1::LaunchOrder& l) {
  // A repeated order (its reply to an earlier heartbeat was received after
  // all, or synergyd had not seen the report yet): started once only.
  if (!NoteStarted({l.job_id(), l.epoch()})) {
    spdlog::debug("node {}: {} lease {}: launch order repeated; started already", offer_.name, l.job_id(), l.epoch());
    return;
  }
  if (stats_.leaving) {
    // Sent before synergyd heard the node is leaving: not started.
    v1::ProcessExit x = NotLaunched(l, -1, "not launched: the node is shutting down");
    x.set_stopped_by_node(true);
    unsent_exits_.push_back(std::move(x));
    return;
  }
  LaunchSpec spec = SpecFor(l);
  auto account = AccountForJob(l.user(), {config_.accounts, config_.allow_root_jobs, config_.run_jobs_as_node_user});
  if (account.ok()) spec.account = *account;
  absl::StatusOr<pid_t> pid = account.ok() ? launcher_->Launch(spec) : absl::StatusOr<pid_t>(account.status());
  if (!pid.ok()) {
    spdlog::error("node {}: {} lease {}: {}", offer_.name, l.job_id(), l.epoch(), std::string(pid.status().message()));
    v1::ProcessExit x = NotLaunched(l, 127, ReasonForDaemon(pid.status().message()));
    x.set_launch_refused(!account.ok());
    unsent_exits_.push_back(std::move(x));
    ++stats_.launch_failures;
    return;
  }
  ++stats_.launches;
  records_->Keep({l.job_id(), l.epoch(), *pid, ProcessStartTicks(*pid), ::getpid()});
  applied_[{l.job_id(), l.epoch()}] = Applied{0, l.mem_gb(), 0};
  spdlog::info("node {}: launched {} lease {} pid {} (gpus {}, {} cpus, {:.1f} GB)", offer_.name, l.job_id(),
               l.epoch(), *pid, l.gpu_ids_size(), l.cpu_ids_size(), l.mem_gb());
}

void NodeAgent::Run(const std::atomic<bool>& stop) {
  while (!stop) {
    Step();
    for (int waited = 0; waited < interval_ms_ && !stop; waited += 20) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  Leave();
}

void NodeAgent::Leave() {
  stats_.leaving = true;
  const auto limit = std::chrono::milliseconds(2 * lease_grace_ms_ + 2000);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  spdlog::info("node {}: leaving: its jobs are given up to {} ms to checkpoint and exit", offer_.name, limit.count());
  while (std::chrono::steady_clock::now() < deadline) {
    const bool told = Step();
    if (told && launcher_->running().empty() && unsent_exits_.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(interval_ms_, 200)));
  }
  if (!launcher_->running().empty()) {
    spdlog::info("node {}: stopping every job process still running", offer_.name);
    launcher_->StopAll(std::chrono::milliseconds(1000));
    Step();  // best effort: how they ended
  }
  spdlog::info("node {}: left", offer_.name);
}

}  // namespace synergy::node
