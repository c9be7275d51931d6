// DaemonState: opening from the store, a change and its commit (undone
// when the store refuses it), progress flushes, and the lease board.
#include "daemon/state/daemon_state.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/agents/agent_gateway.h"
#include "daemon/api/client_gateway.h"
#include "daemon/nodes/node_gateway.h"
#include "daemon/round/lease_actions.h"
#include "daemon/round/round_driver.h"
#include "daemon/round/round_input.h"
#include "service/credentials.h"
#include "service/escape.h"
#include "service/job_spec.h"
#include "service/names.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

namespace {

v1::JobEvent JobEventAt(int64_t now_ms, const std::string& text) {
  v1::JobEvent e;
  e.set_unix_ms(now_ms);
  e.set_text(text);
  return e;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DaemonState>> DaemonState::Open(const DaemonConfig& config,
                                                               std::unique_ptr<Store> store,
                                                               ModelZoo zoo, int64_t now_ms) {
  std::unique_ptr<DaemonState> s(new DaemonState(config, std::move(store), std::move(zoo)));
  auto policy = MakePolicy(config.policy);
  if (!policy.ok()) return policy.status();
  // OPT plans within its work budget; the wall clock is only a net under
  // the round (the daemon's round must end whatever the solver does).
  MechanismOptions options;
  options.opt_time_limit_ms = kOptSafetyNetMs;
  auto mechanism = MakeMechanism(config.mechanism, options);
  if (!mechanism.ok()) return mechanism.status();
  s->policy_ = std::move(*policy);
  s->mechanism_ = std::move(*mechanism);
  const std::optional<TypeChoice> choice = TypeChoiceNamed(config.type_choice);
  if (!choice) return absl::InvalidArgumentError(absl::StrCat("type_choice: unknown '", config.type_choice, "'"));
  s->type_choice_ = *choice;
  auto counters = s->store_->LoadCounters();
  if (!counters.ok()) return counters.status();
  if (counters->count(kNextJobCounter)) s->jobs_.RestoreNextId(counters->at(kNextJobCounter));
  if (counters->count(kNextEpochCounter)) s->leases_.RestoreNextEpoch(counters->at(kNextEpochCounter));
  auto secrets = s->store_->LoadSecrets();
  if (!secrets.ok()) return secrets.status();
  std::string key;
  if (auto it = secrets->find(kCredentialKeySecret); it != secrets->end()) {
    key = it->second;
  } else {
    key = service::RandomHex(32);
    if (key.empty()) return absl::UnavailableError("cannot draw a credential key from the system's CSPRNG");
    Batch batch;
    batch.secrets[kCredentialKeySecret] = key;
    if (auto st = s->store_->Commit(batch); !st.ok()) return st;
  }
  s->authenticator_ = std::make_unique<Authenticator>(config.auth, key);
  auto joined = s->store_->LoadJoinedNodes();
  if (!joined.ok()) return joined.status();
  auto drained = s->store_->LoadDrained();
  if (!drained.ok()) return drained.status();
  s->nodes_.Restore(std::move(*drained), std::move(*joined));
  auto jobs = s->store_->LoadJobs();
  if (!jobs.ok()) return jobs.status();
  for (v1::Job& job : *jobs) {
    if (job.has_lease()) {
      // Running when the daemon stopped: its node has heartbeat_timeout_s to
      // report the processes, or the job is requeued.
      s->leases_.IndexCurrent(job.lease());
      // (A lowered memory limit that was waiting for the job to shed waits
      // again from when its node reports the revision applied.)
      s->leases_.EditLaunch(job.id()).adopt_deadline_ms =
          now_ms + config.heartbeat_timeout_ms();
      s->awaiting_adoption_ = true;
    }
    s->jobs_.Load(std::move(job));
  }
  for (const auto& [id, job] : s->jobs_.all()) s->PublishLease(id);
  s->RestoreGpuUsage(now_ms);
  spdlog::info("state: {} jobs from {} (next job {}, next epoch {})", s->jobs_.size(),
               s->store_->path(), s->jobs_.next_id(), s->leases_.next_epoch());
  return s;
}

DaemonState::DaemonState(const DaemonConfig& config, std::unique_ptr<Store> store, ModelZoo zoo)
    : config_(config),
      store_(std::move(store)),
      group_(std::make_unique<GroupCommit>(*store_)),
      zoo_(std::move(zoo)),
      launch_trigger_(config.launch_debounce_ms),
      node_gateway_(std::make_unique<NodeGateway>(*this)),
      agent_gateway_(std::make_unique<AgentGateway>(*this)),
      round_driver_(std::make_unique<RoundDriver>(*this)),
      client_gateway_(std::make_unique<ClientGateway>(*this)),
      lease_actions_(std::make_unique<LeaseActions>(*this)) {
  for (const TenantConfig& t : config_.auth.tenants) {
    tenant_index_.emplace(t.name, static_cast<int>(tenant_quotas_.quotas.size()));
    tenant_quotas_.quotas.push_back(TenantQuota{t.gpus, t.borrow});
  }
  if (config_.fair_share_half_life_s > 0) {
    tenant_usage_ = std::make_unique<DecayedUsage>(static_cast<double>(config_.fair_share_half_life_s));
    user_usage_ = std::make_unique<DecayedUsage>(static_cast<double>(config_.fair_share_half_life_s));
  }
  jobs_.OnMove([this](const v1::Job& job, JobMove move, int64_t now_ms) {
    if (IsTerminal(job.state())) ++dependency_generation_;
    if (move == JobMove::kSucceed) counters_.completion_s.Observe((now_ms - job.submitted_unix_ms()) / 1000.0);
  });
}

DaemonState::~DaemonState() = default;

absl::StatusOr<int64_t> DaemonState::RegisterNode(const v1::RegisterNodeRequest& request, int64_t now_ms, bool joins) {
  return node_gateway_->RegisterNode(request, now_ms, joins);
}

absl::StatusOr<v1::HeartbeatResponse> DaemonState::Heartbeat(const v1::HeartbeatRequest& request, int64_t now_ms) {
  return node_gateway_->Heartbeat(request, now_ms);
}

absl::Status DaemonState::Tick(int64_t now_ms, bool flush_progress) { return node_gateway_->Tick(now_ms, flush_progress); }

absl::StatusOr<v1::AgentWelcome> DaemonState::RegisterAgent(const v1::AgentHello& hello, int64_t now_ms) {
  return agent_gateway_->RegisterAgent(hello, now_ms);
}

absl::StatusOr<v1::ProgressReply> DaemonState::ReportProgress(const v1::ProgressReport& report, int64_t now_ms) {
  return agent_gateway_->ReportProgress(report, now_ms);
}

absl::Status DaemonState::ConfirmCheckpoint(const v1::CheckpointDone& done, int64_t now_ms) {
  return agent_gateway_->ConfirmCheckpoint(done, now_ms);
}

absl::Status DaemonState::SubmitProfile(const v1::MeasuredProfile& profile, int64_t now_ms) {
  return agent_gateway_->SubmitProfile(profile, now_ms);
}

absl::StatusOr<std::string> DaemonState::Submit(const v1::JobSpec& spec, const std::string& owner, int64_t now_ms) {
  return client_gateway_->Submit(spec, owner, now_ms);
}

absl::StatusOr<DaemonState::PreparedSubmit> DaemonState::PrepareSubmit(const v1::JobSpec& spec,
                                                                       const std::string& owner, int64_t now_ms) {
  return client_gateway_->PrepareSubmit(spec, owner, now_ms);
}

absl::Status DaemonState::StoreSubmission(const PreparedSubmit& prepared) {
  return client_gateway_->StoreSubmission(prepared);
}

absl::StatusOr<std::string> DaemonState::FinishSubmit(PreparedSubmit prepared, const absl::Status& stored) {
  return client_gateway_->FinishSubmit(std::move(prepared), stored);
}

int DaemonState::ActiveJobsOf(const std::string& owner) const { return client_gateway_->ActiveJobsOf(owner); }

absl::StatusOr<v1::Job> DaemonState::Cancel(const std::string& job_id, int64_t now_ms) {
  return client_gateway_->Cancel(job_id, now_ms);
}

absl::StatusOr<v1::Job> DaemonState::GetJob(const std::string& job_id) const { return client_gateway_->GetJob(job_id); }

absl::StatusOr<DaemonState::LogSource> DaemonState::LogSourceOf(const std::string& job_id, int64_t epoch,
                                                                int rank) const {
  return client_gateway_->LogSourceOf(job_id, epoch, rank);
}

absl::StatusOr<std::string> DaemonState::OwnerOf(const std::string& job_id) const {
  return client_gateway_->OwnerOf(job_id);
}

absl::StatusOr<DaemonState::JobPage> DaemonState::ListJobs(const v1::ListJobsRequest& request) const {
  return client_gateway_->ListJobs(request);
}

std::vector<v1::Node> DaemonState::ListNodes(int64_t now_ms) const { return client_gateway_->ListNodes(now_ms); }

v1::ClusterState DaemonState::Cluster() const { return client_gateway_->Cluster(); }

absl::StatusOr<v1::Node> DaemonState::SetDrained(const std::string& node, bool drained, int64_t now_ms,
                                                 const std::string& reason) {
  return client_gateway_->SetDrained(node, drained, now_ms, reason);
}

absl::StatusOr<v1::Job> DaemonState::Hold(const std::string& job_id, const std::string& by, bool by_admin,
                                          int64_t now_ms) {
  return client_gateway_->Hold(job_id, by, by_admin, now_ms);
}

absl::StatusOr<v1::Job> DaemonState::Release(const std::string& job_id, const std::string& by, bool by_admin,
                                             int64_t now_ms) {
  return client_gateway_->Release(job_id, by, by_admin, now_ms);
}

absl::StatusOr<v1::Job> DaemonState::Requeue(const std::string& job_id, const std::string& by, int64_t now_ms) {
  return client_gateway_->Requeue(job_id, by, now_ms);
}

absl::StatusOr<v1::Job> DaemonState::SetPriority(const std::string& job_id, int priority, const std::string& by,
                                                 bool may_raise, int64_t now_ms) {
  return client_gateway_->SetPriority(job_id, priority, by, may_raise, now_ms);
}

absl::StatusOr<RoundWorld> DaemonState::PrepareRound(int64_t now_ms) { return round_driver_->PrepareRound(now_ms); }

RoundDecisions DaemonState::PlanRound(const RoundWorld& world) const { return round_driver_->PlanRound(world); }

absl::Status DaemonState::ApplyRound(const RoundWorld& world, const RoundDecisions& decisions, int64_t now_ms) {
  return round_driver_->ApplyRound(world, decisions, now_ms);
}

absl::Status DaemonState::RunRound(int64_t now_ms) { return round_driver_->RunRound(now_ms); }

absl::StatusOr<RoundWorld> DaemonState::PrepareLaunch(int64_t now_ms) { return round_driver_->PrepareLaunch(now_ms); }

RoundDecisions DaemonState::PlanLaunches(const RoundWorld& world) const { return round_driver_->PlanLaunches(world); }

absl::Status DaemonState::ApplyLaunches(const RoundWorld& world, const RoundDecisions& decisions, int64_t now_ms) {
  return round_driver_->ApplyLaunches(world, decisions, now_ms);
}

absl::Status DaemonState::LaunchBetweenRounds(int64_t now_ms) { return round_driver_->LaunchBetweenRounds(now_ms); }

RoundSnapshot DaemonState::SnapshotForRound(int64_t now_ms, const std::set<std::string>& pinned) const {
  return round_driver_->SnapshotForRound(now_ms, pinned);
}

absl::Status DaemonState::FlushProgress(int64_t now_ms) {
  ProgressFlush flush = StartProgressFlush(now_ms);
  const absl::Status stored = StoreProgress(flush);
  return FinishProgressFlush(flush, stored);
}

DaemonState::ProgressFlush DaemonState::StartProgressFlush(int64_t now_ms) {
  FoldProgress();
  ProgressFlush flush;
  flush.now_ms = now_ms;
  // Advice, not a change: nothing here needs undoing if the store refuses
  // it (the time held moves from the lease into the job's record either way).
  actions().AccountService(now_ms);
  flush.batch = std::make_unique<Batch>();
  jobs_.AddDirtyJobs(*flush.batch);
  flush.marks = jobs_.dirty_marks();
  flush.ticket = group_->Enqueue(*flush.batch);
  return flush;
}

absl::Status DaemonState::StoreProgress(ProgressFlush& flush) { return group_->Wait(flush.ticket); }

absl::Status DaemonState::FinishProgressFlush(const ProgressFlush& flush, const absl::Status& stored) {
  if (auto st = NoteCommit(stored, *flush.batch); !st.ok()) return st;
  jobs_.ForgetFlushed(flush.marks);
  last_progress_flush_ms_ = flush.now_ms;
  return absl::OkStatus();
}

DaemonState::Change::Change(DaemonState& state)
    : state_(state),
      round_(state.round_),
      awaiting_adoption_(state.awaiting_adoption_),
      counters_(state.counters_) {
  state_.jobs_.Open();
  state_.nodes_.Open();
  state_.leases_.Open();
}

DaemonState::Change::~Change() {
  if (!closed_) Undo();
}

void DaemonState::Change::Undo() {
  state_.jobs_.Undo();
  state_.nodes_.Undo();
  state_.leases_.Undo();
  state_.round_ = round_;
  state_.awaiting_adoption_ = awaiting_adoption_;
  const int64_t failures = state_.counters_.store_failures;
  state_.counters_ = counters_;
  state_.counters_.store_failures = failures;
  closed_ = true;
}

absl::Status DaemonState::Change::Commit(Batch batch) {
  if (auto st = state_.CommitToStore(batch); !st.ok()) {
    Undo();
    return st;
  }
  for (const std::string& id : state_.jobs_.Keep()) state_.PublishLease(id);
  state_.nodes_.Keep();
  state_.leases_.Keep();
  closed_ = true;
  return absl::OkStatus();
}

absl::Status DaemonState::CommitToStore(const Batch& batch) {
  if (auto st = NoteCommit(group_->Commit(batch), batch); !st.ok()) return st;
  // Committed under the lock: each record in it is the job's latest.
  jobs_.ForgetStored(batch);
  return absl::OkStatus();
}

absl::Status DaemonState::NoteCommit(const absl::Status& committed, const Batch& batch) {
  if (const absl::Status& st = committed; !st.ok()) {
    ++counters_.store_failures;
    // A full disk fails every commit: one line when it starts, one when it ends.
    if (failing_commits_.fetch_add(1) == 0) {
      spdlog::error("state: cannot store a change ({}); nothing is acted on until the store takes writes again",
                    std::string(st.message()));
    }
    return absl::UnavailableError(absl::StrCat("the state store refused the change: ", st.message()));
  }
  // Only a write shows the store is back (an empty batch writes nothing).
  if (failing_commits_ > 0 && !batch.empty()) {
    spdlog::warn("state: the store takes writes again, after {} refused change(s)", failing_commits_.load());
    failing_commits_ = 0;
  }
  // Logged once stored: a change the store refused did not happen.
  for (const auto& [job, event] : batch.events) spdlog::info("{} {}", job, event.text());
  return absl::OkStatus();
}

void DaemonState::PublishLease(const std::string& id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end() || !it->second.has_lease() || Terminal(it->second)) {
    board_.Publish(id, std::nullopt);
    return;
  }
  const v1::Lease& lease = it->second.lease();
  ProgressBoard::OpenLease open{lease.epoch(), it->second.spec().iterations(), lease.resizable(), lease.revision(),
                                lease.applied_revision(), {}};
  actions().TellAllocation(it->second, 0, open.reply);
  board_.Publish(id, std::move(open));
}

void DaemonState::FoldProgress() {
  for (const auto& [id, report] : board_.TakeReports()) {
    if (jobs_.count(id)) jobs_.NoteProgress(id, report.iterations_done, report.throughput);
  }
}

void DaemonState::Record(Batch& batch, v1::Job& job, const std::string& text, int64_t now_ms) {
  batch.events.emplace_back(job.id(), JobEventAt(now_ms, text));
  job.set_updated_unix_ms(now_ms);
  batch.PutJob(job);
}

bool DaemonState::Terminal(const v1::Job& job) const { return IsTerminal(job.state()); }

int DaemonState::MaxRetries(const v1::Job& job) const {
  return job.spec().max_retries() >= 0 ? job.spec().max_retries() : config_.max_retries;
}

void DaemonState::RetireEndedJobs(Batch& batch, int64_t now_ms) {
  if (config_.retain_ended_jobs_s < 0 || now_ms < next_retirement_ms_) return;
  const int64_t retain_ms = config_.retain_ended_jobs_s * 1000;
  // Looked for at most every 10 s (a walk over every job), more often only
  // where retention is that short.
  next_retirement_ms_ = now_ms + std::clamp<int64_t>(retain_ms / 2, 100, 10000);
  std::vector<std::string> due;
  for (const auto& [id, job] : jobs_.all()) {
    if (!Terminal(job) || job.finished_unix_ms() <= 0 || now_ms - job.finished_unix_ms() < retain_ms) continue;
    // Holding nothing and stored as it is: its last record is what the
    // history keeps.
    if (job.has_lease() || leases_.AnyOf(id) || jobs_.dirty(id)) continue;
    due.push_back(id);
    if (due.size() == static_cast<size_t>(kMaxRetiredPerTick)) break;
  }
  for (const std::string& id : due) {
    batch.retired.push_back(jobs_.at(id));
    jobs_.Retire(id);
  }
  if (!due.empty()) {
    spdlog::info("retired {} ended job(s) into the history table ({} to {}): ended over {} s ago", due.size(),
                 due.front(), due.back(), config_.retain_ended_jobs_s);
  }
}

}  // namespace synergy::daemon
