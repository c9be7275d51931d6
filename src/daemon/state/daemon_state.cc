// DaemonState: opening from the store, a change and its commit (undone
// when the store refuses it), progress flushes, and the lease board.
#include "daemon/state/daemon_state.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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
  spdlog::info("state: {} jobs from {} (next job {}, next epoch {})", s->jobs_.size(),
               s->store_->path(), s->jobs_.next_id(), s->leases_.next_epoch());
  return s;
}

DaemonState::DaemonState(const DaemonConfig& config, std::unique_ptr<Store> store, ModelZoo zoo)
    : config_(config),
      store_(std::move(store)),
      group_(std::make_unique<GroupCommit>(*store_)),
      zoo_(std::move(zoo)) {
  jobs_.OnMove([this](const v1::Job& job, JobMove move, int64_t now_ms) {
    if (move == JobMove::kSucceed) counters_.completion_s.Observe((now_ms - job.submitted_unix_ms()) / 1000.0);
  });
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
  AccountService(now_ms);
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
  TellAllocation(it->second, 0, open.reply);
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

}  // namespace synergy::daemon
