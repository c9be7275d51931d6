#include "daemon/nodes/slurm_executor_loop.h"

#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "node/job_output.h"
#include "service/auth.h"
#include "service/request_validation.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {
namespace {

// The node protocol, in-process: what NodeServiceImpl does for a node's
// call once the caller is known to be the node.
class DaemonNodeEndpoint final : public slurm::NodeEndpoint {
 public:
  DaemonNodeEndpoint(Guarded& g, std::string log_dir, node::AccountRule rule)
      : g_(g), log_dir_(std::move(log_dir)), rule_(std::move(rule)) {}

  absl::StatusOr<v1::RegisterNodeResponse> Register(const v1::RegisterNodeRequest& request) override {
    if (absl::Status st = service::ValidateRegisterNodeRequest(request); !st.ok()) return st;
    absl::MutexLock lock(&g_.mu);
    absl::StatusOr<int64_t> interval = g_.state->RegisterNode(request, service::NowUnixMs(), /*joins=*/false);
    if (!interval.ok()) return interval.status();
    v1::RegisterNodeResponse response;
    response.set_heartbeat_interval_ms(*interval);
    response.set_lease_grace_ms(g_.state->config().lease_grace_ms());
    return response;
  }

  absl::StatusOr<v1::HeartbeatResponse> Heartbeat(const v1::HeartbeatRequest& request) override {
    if (absl::Status st = service::ValidateHeartbeatRequest(request); !st.ok()) return st;
    absl::StatusOr<v1::HeartbeatResponse> reply;
    {
      absl::MutexLock lock(&g_.mu);
      reply = g_.state->Heartbeat(request, service::NowUnixMs());
    }
    // Output asked for by `synergyctl logs`: Slurm wrote it where the node
    // writes its own (node/job_output.h), in the owner's folder of log_dir,
    // the node's within it. Read here, outside the lock, as the node reads it.
    for (const v1::LogRequest& r : g_.logs->TakeFor(request.name())) {
      v1::LogChunk chunk;
      std::optional<std::string> owner = OwnerOf(r.job_id());
      absl::StatusOr<slurm::JobIdentity> who =
          owner ? SlurmIdentityFor(*owner, rule_) : absl::NotFoundError(absl::StrCat("job ", r.job_id(), ": no owner"));
      if (who.ok()) {
        chunk = node::ReadJobOutput(absl::StrCat(log_dir_, "/", who->folder, "/", request.name()), r);
      } else {
        chunk.set_request_id(r.request_id());
        chunk.set_error(std::string(who.status().message()));
      }
      chunk.set_name(request.name());
      g_.logs->Deliver(request.name(), std::move(chunk));
    }
    return reply;
  }

  std::optional<std::string> OwnerOf(const std::string& job_id) override {
    absl::ReaderMutexLock lock(&g_.mu);
    absl::StatusOr<std::string> owner = g_.state->OwnerOf(job_id);
    if (!owner.ok()) return std::nullopt;
    return *owner;
  }

 private:
  Guarded& g_;
  std::string log_dir_;
  node::AccountRule rule_;
};

}  // namespace

absl::StatusOr<slurm::JobIdentity> SlurmIdentityFor(const std::string& user, const node::AccountRule& rule) {
  absl::StatusOr<std::optional<node::JobAccount>> account = node::AccountForJob(user, rule);
  if (!account.ok()) return account.status();
  if (account->has_value()) {
    return slurm::JobIdentity{static_cast<int64_t>((*account)->uid), static_cast<int64_t>((*account)->gid),
                              (*account)->name};
  }
  // synergyd's own account.
  const uid_t uid = ::geteuid();
  std::string name = absl::StrCat("uid-", uid);
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) name = found->pw_name;
  return slurm::JobIdentity{static_cast<int64_t>(uid), static_cast<int64_t>(::getegid()), name};
}

absl::StatusOr<std::unique_ptr<SlurmExecutorLoop>> SlurmExecutorLoop::Start(const DaemonConfig& config,
                                                                           Guarded& guarded,
                                                                           std::function<int64_t()> next_round_unix_ms) {
  const SlurmSettings& s = config.slurm;
  // log_dir itself is 0755: each account's folder in it is its own, 0700
  // (slurm/output_folders.h); slurmd, writing as the account, passes through.
  std::error_code ec;
  std::filesystem::create_directories(s.log_dir, ec);
  if (!ec) std::filesystem::permissions(s.log_dir, std::filesystem::perms(0755), ec);
  if (ec) return absl::FailedPreconditionError(absl::StrCat("slurm.log_dir: '", s.log_dir, "': ", std::string(ec.message())));
  std::unique_ptr<SlurmExecutorLoop> loop(new SlurmExecutorLoop());
  loop->interval_ms_ = config.heartbeat_interval_ms;
  loop->next_round_unix_ms_ = std::move(next_round_unix_ms);
  // Slurm's commands run with this environment only: nothing of synergyd's
  // (its credentials) nor of any lease's.
  std::vector<std::pair<std::string, std::string>> env = {{"PATH", s.bin_dir + ":/usr/bin:/bin"}};
  if (!s.slurm_conf.empty()) env.emplace_back("SLURM_CONF", s.slurm_conf);
  slurm::SlurmCliOptions cli;
  cli.bin_dir = s.bin_dir;
  cli.env = env;
  cli.timeout = std::chrono::milliseconds(MillisecondsOf(s.command_timeout_s));
  cli.partition = s.partition;
  loop->cli_ = std::make_unique<slurm::SlurmCli>(cli);
  node::AccountRule rule = s.accounts;
  rule.switched_by_caller = false;  // Slurm switches (sbatch --uid)
  loop->endpoint_ = std::make_unique<DaemonNodeEndpoint>(guarded, s.log_dir, rule);
  slurm::SlurmExecutorConfig executor;
  executor.partition = s.partition;
  executor.sbatch.partition = s.partition;
  executor.sbatch.log_dir = s.log_dir;
  executor.sbatch.work_dir = s.work_dir;
  executor.agent_env["SYNERGY_SCHEDULER"] = s.scheduler.empty() ? config.listen : s.scheduler;
  if (s.scheduler.empty() && (absl::StartsWith(config.listen, "127.") || absl::StartsWith(config.listen, "localhost") ||
                              absl::StartsWith(config.listen, "[::1]") || absl::StartsWith(config.listen, "0.0.0.0"))) {
    spdlog::warn("slurm.scheduler is empty: jobs' agents dial listen ({}), which other hosts cannot reach; set "
                 "slurm.scheduler to synergyd's address as the nodes see it", config.listen);
  }
  if (config.tls.plaintext) executor.agent_env["SYNERGY_PLAINTEXT"] = "1";
  if (!s.tls_ca.empty()) executor.agent_env["SYNERGY_TLS_CA"] = s.tls_ca;
  if (!s.tls_server_name.empty()) executor.agent_env["SYNERGY_TLS_SERVER_NAME"] = s.tls_server_name;
  executor.sbatch.slurm_env = env;
  executor.sbatch.allow_root_jobs = s.accounts.allow_root_jobs;
  executor.sbatch.account = {s.account_of_user, s.account_of_tenant};
  executor.sbatch.qos = {s.qos_of_user, s.qos_of_tenant};
  executor.default_env = s.job_env;
  // A job listed late by squeue, or a submission whose answer was lost, is
  // looked for over several steps, at least 30 s.
  executor.submit_visible_ms = std::max<int64_t>(MillisecondsOf(s.submit_visible_s),
                                                 10 * static_cast<int64_t>(config.heartbeat_interval_ms));
  executor.max_pending_ms = MillisecondsOf(s.max_pending_s);
  executor.stale_limit_ms = MillisecondsOf(s.stale_limit_s);
  executor.read_interval_ms = MillisecondsOf(s.read_interval_s);
  loop->executor_ = std::make_unique<slurm::SlurmExecutor>(
      executor, *loop->cli_, *loop->endpoint_,
      [rule](const std::string& user) { return SlurmIdentityFor(user, rule); });
  spdlog::info("synergyd: leases run through Slurm, partition {} (commands in {}, output in {})", s.partition,
               s.bin_dir, s.log_dir);
  loop->thread_ = std::thread([raw = loop.get()] { raw->Run(); });
  return loop;
}

void SlurmExecutorLoop::Run() {
  bool failing = false;
  do {
    const int64_t now_ms = service::NowUnixMs();
    // "Once per round": the last step before a round reads Slurm, so that
    // the round sees the jobs that ended since the last read.
    if (const int64_t round_ms = next_round_unix_ms_ ? next_round_unix_ms_() : 0;
        round_ms > 0 && round_ms != read_before_round_ms_ && round_ms - now_ms <= interval_ms_) {
      executor_->ReadAtNextStep();
      read_before_round_ms_ = round_ms;
    }
    const absl::Status st = executor_->Step(now_ms);
    // One line when an outage starts, one when it ends.
    if (!st.ok() && !failing) {
      spdlog::warn("slurm: cannot read the cluster: {} (retrying; nodes and leases are kept as last seen for up "
                   "to 10 minutes and nothing is cancelled meanwhile; jobs keep running)",
                   std::string(st.message()));
      unreadable_since_ms_ = now_ms;
      ++outages_;
    } else if (st.ok() && failing) {
      spdlog::info("slurm: the cluster answers again after {} s",
                   (now_ms - unreadable_since_ms_.load()) / 1000);
      unreadable_since_ms_ = 0;
    }
    failing = !st.ok();
  } while (!stop_.WaitForNotificationWithTimeout(absl::Milliseconds(interval_ms_)));
}

SlurmExecutorLoop::~SlurmExecutorLoop() {
  stop_.Notify();
  if (thread_.joinable()) thread_.join();
}

}  // namespace synergy::daemon
