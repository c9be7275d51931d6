#include "daemon/api/services.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/api/access_rules.h"
#include "service/auth.h"
#include "service/escape.h"
#include "service/request_validation.h"

namespace synergy::daemon {
namespace {

using service::NowUnixMs;

grpc::Status Denied(const std::string& why) { return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, why); }

// executor: slurm: Slurm's nodes are synergyd's nodes; a synergy-node
// registering too would be planned on beside them with its own processes.
grpc::Status SlurmOwnsNodes() {
  return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                      "this synergyd runs its leases through Slurm (executor: slurm): nodes do not register");
}

// A leader another synergyd has fenced (it is stepping down) gives nodes
// and agents no orders: they move on to the next address.
grpc::Status SteppingDown() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      "this synergyd is stepping down: another synergyd leads the state now");
}

// The epoch this daemon leads a shared state at; 0 for a single writer.
int64_t LeaderEpoch(const DaemonState& state) {
  const std::optional<Store::Leadership> leading = state.store_leadership();
  return leading ? leading->epoch : 0;
}

// The caller, if its credential passes `method`'s rule. Fail-closed: a
// method without a rule is refused.
absl::StatusOr<Principal> Authorize(const grpc::ServerContext& ctx, const DaemonState& state,
                                    const std::string& method, const std::string& node_name = "") {
  const std::string full = absl::StrCat("/synergy.v1.", method);
  const std::optional<Access> rule = AccessRule(full);
  if (!rule) return absl::PermissionDeniedError(absl::StrCat(full, ": no access rule"));
  auto who = state.authenticator().Identify(service::BearerOf(ctx), node_name,
                                            !node_name.empty() && state.NodeJoined(node_name));
  if (!who.ok()) return who.status();
  if (!Permits(*rule, who->role)) {
    return absl::PermissionDeniedError(
        absl::StrCat(method, ": not allowed for ", RoleName(who->role), " '", who->name, "'"));
  }
  return who;
}

bool SeesEverything(const Principal& p) { return p.role == Role::kAdmin || p.role == Role::kAnyone; }

// A job's command, environment and checkpoint path are its owner's (they
// may hold secrets): others see that the job exists and how it runs.
void HideDetails(v1::Job& job, const Principal& viewer) {
  if (SeesEverything(viewer) || job.owner() == viewer.name) return;
  job.mutable_spec()->clear_command();
  job.mutable_spec()->clear_env();
  job.clear_checkpoint_path();
}

// With require_node_certificates, a node's TLS client certificate must name it.
grpc::Status CheckNodeCertificate(const grpc::ServerContext& ctx, const DaemonConfig& config,
                                  const std::string& node) {
  if (!config.tls.require_node_certificates) return grpc::Status::OK;
  auto auth = ctx.auth_context();
  if (!auth || !auth->IsPeerAuthenticated()) return Denied("node calls need a client certificate");
  for (const auto& cn : auth->FindPropertyValues("x509_common_name")) {
    if (std::string(cn.data(), cn.size()) == node) return grpc::Status::OK;
  }
  return Denied(absl::StrCat("the client certificate does not name node '", node, "'"));
}

// A NodeService caller may speak only for its own name.
absl::StatusOr<Principal> AuthorizeNode(const grpc::ServerContext& ctx, const DaemonState& state,
                                        const std::string& method, const std::string& node) {
  auto who = Authorize(ctx, state, method, node);
  if (!who.ok()) return who.status();
  if (who->role == Role::kNode && who->name != node) {
    return absl::PermissionDeniedError(
        absl::StrCat(method, ": node '", who->name, "' cannot speak for node '", node, "'"));
  }
  if (grpc::Status st = CheckNodeCertificate(ctx, state.config(), node); !st.ok()) {
    return absl::PermissionDeniedError(st.error_message());
  }
  return who;
}

// Every AgentService call names its lease; only that lease's credential
// may act under it (auth mode none included: a job must not steer another).
grpc::Status AuthorizeAgent(const grpc::ServerContextBase& ctx, const Authenticator& authenticator,
                            const std::string& job_id, int64_t epoch) {
  const std::string bearer = service::BearerOf(ctx);
  if (bearer.empty()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "no credential: agents send their lease's SYNERGY_AGENT_TOKEN");
  }
  if (!authenticator.IsLeaseCredential(bearer, job_id, epoch)) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        absl::StrCat("not the credential of job ", job_id, " lease ", epoch));
  }
  return grpc::Status::OK;
}

}  // namespace

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  grpc::StatusCode code = grpc::StatusCode::INTERNAL;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument: code = grpc::StatusCode::INVALID_ARGUMENT; break;
    case absl::StatusCode::kNotFound: code = grpc::StatusCode::NOT_FOUND; break;
    case absl::StatusCode::kFailedPrecondition: code = grpc::StatusCode::FAILED_PRECONDITION; break;
    case absl::StatusCode::kUnavailable: code = grpc::StatusCode::UNAVAILABLE; break;
    case absl::StatusCode::kUnauthenticated: code = grpc::StatusCode::UNAUTHENTICATED; break;
    case absl::StatusCode::kPermissionDenied: code = grpc::StatusCode::PERMISSION_DENIED; break;
    case absl::StatusCode::kDataLoss: code = grpc::StatusCode::DATA_LOSS; break;
    case absl::StatusCode::kResourceExhausted: code = grpc::StatusCode::RESOURCE_EXHAUSTED; break;
    default: break;
  }
  return grpc::Status(code, std::string(status.message()));
}

#define SYNERGY_AUTHORIZE(who, expr)                  \
  auto who = (expr);                                  \
  if (!who.ok()) return ToGrpc(who.status())

// Every request is bounded before anything reads it (service/request_validation.h):
// INVALID_ARGUMENT naming the field, and nothing changes.
#define SYNERGY_VALIDATE(expr)                                 \
  do {                                                         \
    if (absl::Status valid = (expr); !valid.ok()) return ToGrpc(valid); \
  } while (0)

// Only the job's owner and admins act on a job or read its output:
// NOT_FOUND for no such job, PERMISSION_DENIED for anyone else (`why`
// ends the refusal).
grpc::Status CheckOwnerOrAdmin(const DaemonState& state, const Principal& who, const std::string& job_id,
                               const std::string& why = "") {
  auto owner = state.OwnerOf(job_id);
  if (!owner.ok()) return ToGrpc(owner.status());
  if (!SeesEverything(who) && *owner != who.name) {
    return Denied(absl::StrCat("job ", job_id, " belongs to another user", why));
  }
  return grpc::Status::OK;
}

// With auth.tenants set, a job's tenant is one of them (or none, an
// admin's job outside every quota).
grpc::Status CheckTenantKnown(const DaemonConfig& config, const std::string& tenant) {
  if (config.auth.tenants.empty() || tenant.empty()) return grpc::Status::OK;
  std::vector<std::string> names;
  for (const TenantConfig& t : config.auth.tenants) {
    if (t.name == tenant) return grpc::Status::OK;
    names.push_back(t.name);
  }
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                      absl::StrCat("spec.tenant: ", service::QuoteForMessage(tenant),
                                   " is not a tenant of this cluster (auth.tenants: ", absl::StrJoin(names, ", "), ")"));
}

// A submission's store wait, without the daemon's lock by contract
// (Guarded): DaemonState::StoreSubmission only waits on the group commit's
// queue, thread-safe, so that submissions arriving meanwhile share a
// commit.
absl::Status StoreWithoutLock(DaemonState& state, const DaemonState::PreparedSubmit& prepared)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  return state.StoreSubmission(prepared);
}

grpc::Status SchedulerServiceImpl::SubmitJob(grpc::ServerContext* ctx, const v1::SubmitJobRequest* req,
                                             v1::SubmitJobResponse* resp) {
  absl::MutexLock lock(&g_.mu);
  SYNERGY_AUTHORIZE(who, Authorize(*ctx, *g_.state, "SchedulerService/SubmitJob"));
  SYNERGY_VALIDATE(service::ValidateSubmitJobRequest(*req));
  v1::JobSpec spec = req->spec();
  // A user's jobs are accounted to its tenant (a user of none submits to
  // none); only admins choose another, and with auth.tenants set, one of
  // those.
  if (who->role == Role::kUser) {
    if (spec.tenant().empty()) spec.set_tenant(who->tenant);
    if (spec.tenant() != who->tenant) {
      return Denied(who->tenant.empty()
                        ? absl::StrCat("spec.tenant: user '", who->name, "' belongs to no tenant and submits to none")
                        : absl::StrCat("spec.tenant: user '", who->name, "' submits to tenant '", who->tenant,
                                       "' only"));
    }
  }
  if (grpc::Status known = CheckTenantKnown(g_.state->config(), spec.tenant()); !known.ok()) return known;
  const int max_active = g_.state->config().max_active_jobs_per_user;
  const int active = g_.state->ActiveJobsOf(who->name);
  const int more = service::JobsOfArray(spec.array());
  if (who->role == Role::kUser && active + more > max_active) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        absl::StrCat("user '", who->name, "' has ", active, " jobs that have not ended",
                                     more > 1 ? absl::StrCat(" and asks for ", more, " more") : "",
                                     " (max_active_jobs_per_user ", max_active, ")"));
  }
  auto prepared = g_.state->PrepareSubmit(spec, who->name, NowUnixMs());
  if (!prepared.ok()) return ToGrpc(prepared.status());
  resp->set_jobs(static_cast<int>(prepared->jobs.size()));
  // The store is waited for without the lock, so that submissions arriving
  // meanwhile share the same commit (group_commit.h).
  g_.mu.Unlock();
  const absl::Status stored = StoreWithoutLock(*g_.state, *prepared);
  g_.mu.Lock();
  auto id = g_.state->FinishSubmit(std::move(*prepared), stored);
  if (!id.ok()) return ToGrpc(id.status());
  resp->set_job_id(*id);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::CancelJob(grpc::ServerContext* ctx, const v1::CancelJobRequest* req,
                                             v1::CancelJobResponse* resp) {
  absl::MutexLock lock(&g_.mu);
  SYNERGY_AUTHORIZE(who, Authorize(*ctx, *g_.state, "SchedulerService/CancelJob"));
  SYNERGY_VALIDATE(service::ValidateCancelJobRequest(*req));
  const std::string id = g_.state->ResolveJobName(req->job_id());
  if (grpc::Status may = CheckOwnerOrAdmin(*g_.state, *who, id); !may.ok()) return may;
  auto job = g_.state->Cancel(id, NowUnixMs());
  if (!job.ok()) return ToGrpc(job.status());
  *resp->mutable_job() = std::move(*job);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::GetJob(grpc::ServerContext* ctx, const v1::GetJobRequest* req, v1::Job* resp) {
  absl::ReaderMutexLock lock(&g_.mu);  // reads share the lock
  SYNERGY_AUTHORIZE(who, Authorize(*ctx, *g_.state, "SchedulerService/GetJob"));
  SYNERGY_VALIDATE(service::ValidateGetJobRequest(*req));
  auto job = g_.state->GetJob(g_.state->ResolveJobName(req->job_id()));
  if (!job.ok()) return ToGrpc(job.status());
  HideDetails(*job, *who);
  *resp = std::move(*job);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::ListJobs(grpc::ServerContext* ctx, const v1::ListJobsRequest* req,
                                            v1::ListJobsResponse* resp) {
  absl::ReaderMutexLock lock(&g_.mu);  // reads share the lock
  SYNERGY_AUTHORIZE(who, Authorize(*ctx, *g_.state, "SchedulerService/ListJobs"));
  SYNERGY_VALIDATE(service::ValidateListJobsRequest(*req));
  auto page = g_.state->ListJobs(*req);
  if (!page.ok()) return ToGrpc(page.status());
  for (v1::Job& j : page->jobs) {
    HideDetails(j, *who);
    *resp->add_jobs() = std::move(j);
  }
  resp->set_next_page_token(page->next_page_token);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::ListNodes(grpc::ServerContext* ctx, const v1::ListNodesRequest*,
                                             v1::ListNodesResponse* resp) {
  absl::ReaderMutexLock lock(&g_.mu);  // reads share the lock
  SYNERGY_AUTHORIZE(who, Authorize(*ctx, *g_.state, "SchedulerService/ListNodes"));
  for (v1::Node& n : g_.state->ListNodes(NowUnixMs())) *resp->add_nodes() = std::move(n);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::GetClusterState(grpc::ServerContext* ctx, const v1::ClusterStateRequest*,
                                                   v1::ClusterState* resp) {
  absl::ReaderMutexLock lock(&g_.mu);  // reads share the lock
  SYNERGY_AUTHORIZE(who, Authorize(*ctx, *g_.state, "SchedulerService/GetClusterState"));
  *resp = g_.state->Cluster();
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::DrainNode(grpc::ServerContext* ctx, const v1::DrainNodeRequest* req,
                                             v1::DrainNodeResponse* resp) {
  absl::MutexLock lock(&g_.mu);
  SYNERGY_AUTHORIZE(who, Authorize(*ctx, *g_.state, "SchedulerService/DrainNode"));
  SYNERGY_VALIDATE(service::ValidateDrainNodeRequest(*req));
  auto node = g_.state->SetDrained(req->name(), true, NowUnixMs(), req->reason());
  if (!node.ok()) return ToGrpc(node.status());
  *resp->mutable_node() = std::move(*node);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::UndrainNode(grpc::ServerContext* ctx, const v1::DrainNodeRequest* req,
                                               v1::DrainNodeResponse* resp) {
  absl::MutexLock lock(&g_.mu);
  SYNERGY_AUTHORIZE(who, Authorize(*ctx, *g_.state, "SchedulerService/UndrainNode"));
  SYNERGY_VALIDATE(service::ValidateDrainNodeRequest(*req));
  if (!req->reason().empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "reason: an undrain takes no reason");
  }
  auto node = g_.state->SetDrained(req->name(), false, NowUnixMs());
  if (!node.ok()) return ToGrpc(node.status());
  *resp->mutable_node() = std::move(*node);
  return grpc::Status::OK;
}

namespace {

// Authenticates the caller for `method`, then bounds the request (`valid`),
// then checks the caller may act on the job (its owner, or an admin) and,
// if so, runs `act` with the caller and the job's id (an array's job named
// by its index resolved); the job comes back as the caller may see it.
template <typename Act>
grpc::Status ActOnOwnJob(Guarded& g, grpc::ServerContext& ctx, const char* method, const absl::Status& valid,
                         const std::string& job_id, v1::JobActionResponse* resp, Act act)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(g.mu) {
  SYNERGY_AUTHORIZE(who, Authorize(ctx, *g.state, method));
  if (!valid.ok()) return ToGrpc(valid);
  const std::string id = g.state->ResolveJobName(job_id);
  if (grpc::Status may = CheckOwnerOrAdmin(*g.state, *who, id); !may.ok()) return may;
  absl::StatusOr<v1::Job> job = act(*who, id);
  if (!job.ok()) return ToGrpc(job.status());
  HideDetails(*job, *who);
  *resp->mutable_job() = std::move(*job);
  return grpc::Status::OK;
}

}  // namespace

grpc::Status SchedulerServiceImpl::HoldJob(grpc::ServerContext* ctx, const v1::JobActionRequest* req,
                                           v1::JobActionResponse* resp) {
  absl::MutexLock lock(&g_.mu);
  return ActOnOwnJob(g_, *ctx, "SchedulerService/HoldJob", service::ValidateJobActionRequest(*req), req->job_id(), resp,
                     [&](const Principal& who, const std::string& id) {
                       g_.mu.AssertHeld();  // ActOnOwnJob calls it at once
                       return g_.state->Hold(id, who.name, SeesEverything(who), NowUnixMs());
                     });
}

grpc::Status SchedulerServiceImpl::ReleaseJob(grpc::ServerContext* ctx, const v1::JobActionRequest* req,
                                              v1::JobActionResponse* resp) {
  absl::MutexLock lock(&g_.mu);
  return ActOnOwnJob(g_, *ctx, "SchedulerService/ReleaseJob", service::ValidateJobActionRequest(*req), req->job_id(), resp,
                     [&](const Principal& who, const std::string& id) {
                       g_.mu.AssertHeld();  // ActOnOwnJob calls it at once
                       return g_.state->Release(id, who.name, SeesEverything(who), NowUnixMs());
                     });
}

grpc::Status SchedulerServiceImpl::RequeueJob(grpc::ServerContext* ctx, const v1::JobActionRequest* req,
                                              v1::JobActionResponse* resp) {
  absl::MutexLock lock(&g_.mu);
  return ActOnOwnJob(g_, *ctx, "SchedulerService/RequeueJob", service::ValidateJobActionRequest(*req), req->job_id(), resp,
                     [&](const Principal& who, const std::string& id) {
                       g_.mu.AssertHeld();  // ActOnOwnJob calls it at once
                       return g_.state->Requeue(id, who.name, NowUnixMs());
                     });
}

grpc::Status SchedulerServiceImpl::UpdateJob(grpc::ServerContext* ctx, const v1::UpdateJobRequest* req,
                                             v1::JobActionResponse* resp) {
  absl::MutexLock lock(&g_.mu);
  return ActOnOwnJob(g_, *ctx, "SchedulerService/UpdateJob", service::ValidateUpdateJobRequest(*req), req->job_id(), resp,
                     [&](const Principal& who, const std::string& id) {
                       g_.mu.AssertHeld();  // ActOnOwnJob calls it at once
                       return g_.state->SetPriority(id, req->priority(), who.name, SeesEverything(who), NowUnixMs());
                     });
}

grpc::Status SchedulerServiceImpl::GetJobLogs(grpc::ServerContext* ctx, const v1::JobLogsRequest* req,
                                              v1::JobLogs* resp) {
  DaemonState::LogSource source;
  int64_t heartbeat_ms = 0;
  std::string reader;
  std::string id;
  {
    absl::ReaderMutexLock lock(&g_.mu);
    SYNERGY_AUTHORIZE(who, Authorize(*ctx, *g_.state, "SchedulerService/GetJobLogs"));
    SYNERGY_VALIDATE(service::ValidateJobLogsRequest(*req));
    id = g_.state->ResolveJobName(req->job_id());
    // Output may hold what the command and environment hold.
    if (grpc::Status may = CheckOwnerOrAdmin(*g_.state, *who, id, ": its output is its owner's"); !may.ok()) {
      return may;
    }
    auto found = g_.state->LogSourceOf(id, req->epoch(), req->rank());
    if (!found.ok()) return ToGrpc(found.status());
    source = *found;
    heartbeat_ms = g_.state->config().heartbeat_interval_ms;
    reader = who->name;
  }
  v1::LogRequest ask;
  ask.set_job_id(id);
  ask.set_epoch(source.epoch);
  ask.set_stderr(req->stderr());
  ask.set_offset(req->offset());
  ask.set_max_bytes(req->max_bytes() > 0 ? req->max_bytes() : service::kDefaultLogChunkBytes);
  // The node picks it up with its next heartbeat: wait a few of them, and
  // never past the caller's own deadline or after it has gone.
  absl::Time deadline = absl::Now() + absl::Milliseconds(std::max<int64_t>(5000, 3 * heartbeat_ms));
  if (ctx->deadline() != std::chrono::system_clock::time_point::max()) {
    deadline = std::min(deadline, absl::FromChrono(ctx->deadline()) - absl::Milliseconds(250));
  }
  auto chunk = g_.logs->Fetch(source.node, reader, std::move(ask), deadline, [ctx] { return ctx->IsCancelled(); });
  if (!chunk.ok()) return ToGrpc(chunk.status());
  if (!chunk->error().empty()) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, absl::StrCat("node ", source.node, ": ", chunk->error()));
  }
  resp->set_job_id(id);
  resp->set_epoch(source.epoch);
  resp->set_node(source.node);
  resp->set_offset(chunk->offset());
  resp->set_data(std::move(*chunk->mutable_data()));
  resp->set_size(chunk->size());
  resp->set_rotated(chunk->rotated());
  resp->set_latest_epoch(source.latest_epoch);
  resp->set_next_epoch(source.next_epoch);
  resp->set_job_ended(source.job_ended);
  return grpc::Status::OK;
}

grpc::Status NodeServiceImpl::RegisterNode(grpc::ServerContext* ctx, const v1::RegisterNodeRequest* req,
                                           v1::RegisterNodeResponse* resp) {
  absl::MutexLock lock(&g_.mu);
  if (g_.fenced()) return SteppingDown();
  SYNERGY_AUTHORIZE(who, AuthorizeNode(*ctx, *g_.state, "NodeService/RegisterNode", req->name()));
  SYNERGY_VALIDATE(service::ValidateRegisterNodeRequest(*req));
  if (g_.state->config().executor == "slurm") return SlurmOwnsNodes();
  const bool joins = who->role == Role::kNodeJoin;
  if (joins) {
    // A join credential admits a new name once; the node gets a credential
    // bound to that name, so no holder of the join credential can take it
    // over later.
    if (g_.state->authenticator().IsConfiguredNode(req->name()) || g_.state->NodeJoined(req->name())) {
      return Denied(absl::StrCat("node '", req->name(),
                                 "' is already known: it registers with its own credential, not a join credential"));
    }
  }
  auto interval = g_.state->RegisterNode(*req, NowUnixMs(), joins);
  if (!interval.ok()) return ToGrpc(interval.status());
  if (joins) resp->set_node_credential(g_.state->authenticator().NodeCredential(req->name()));
  resp->set_heartbeat_interval_ms(*interval);
  resp->set_lease_grace_ms(g_.state->config().lease_grace_ms());
  resp->set_leader_epoch(LeaderEpoch(*g_.state));
  return grpc::Status::OK;
}

grpc::Status NodeServiceImpl::Heartbeat(grpc::ServerContext* ctx, const v1::HeartbeatRequest* req,
                                        v1::HeartbeatResponse* resp) {
  absl::MutexLock lock(&g_.mu);
  if (g_.fenced()) return SteppingDown();
  SYNERGY_AUTHORIZE(who, AuthorizeNode(*ctx, *g_.state, "NodeService/Heartbeat", req->name()));
  SYNERGY_VALIDATE(service::ValidateHeartbeatRequest(*req));
  if (g_.state->config().executor == "slurm") return SlurmOwnsNodes();
  if (who->role == Role::kNodeJoin) return Denied("a join credential only registers: use the node's own credential");
  auto reply = g_.state->Heartbeat(*req, NowUnixMs());
  if (!reply.ok()) return ToGrpc(reply.status());
  *resp = std::move(*reply);
  resp->set_leader_epoch(LeaderEpoch(*g_.state));
  for (v1::LogRequest& r : g_.logs->TakeFor(req->name())) *resp->add_logs() = std::move(r);
  return grpc::Status::OK;
}

grpc::Status NodeServiceImpl::ReturnLogs(grpc::ServerContext* ctx, const v1::LogChunk* req, v1::LogChunkAck*) {
  {
    absl::ReaderMutexLock lock(&g_.mu);
    SYNERGY_AUTHORIZE(who, AuthorizeNode(*ctx, *g_.state, "NodeService/ReturnLogs", req->name()));
    if (who->role == Role::kNodeJoin) return Denied("a join credential only registers: use the node's own credential");
  }
  SYNERGY_VALIDATE(service::ValidateLogChunk(*req));
  // A late answer (its reader gave up) is dropped.
  g_.logs->Deliver(req->name(), *req);
  return grpc::Status::OK;
}

grpc::Status AgentServiceImpl::RegisterAgent(grpc::ServerContext* ctx, const v1::AgentHello* req,
                                             v1::AgentWelcome* resp) {
  if (g_.fenced()) return SteppingDown();
  if (auto st = AuthorizeAgent(*ctx, *g_.authenticator, req->job_id(), req->epoch()); !st.ok()) return st;
  SYNERGY_VALIDATE(service::ValidateAgentHello(*req));
  absl::MutexLock lock(&g_.mu);
  auto w = g_.state->RegisterAgent(*req, NowUnixMs());
  if (!w.ok()) return ToGrpc(w.status());
  *resp = std::move(*w);
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* AgentServiceImpl::ReportProgress(grpc::CallbackServerContext* ctx,
                                                           const v1::ProgressReport* req, v1::ProgressReply* resp) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  reactor->Finish(Progress(ctx, req, resp));
  return reactor;
}

grpc::Status AgentServiceImpl::Progress(grpc::CallbackServerContext* ctx, const v1::ProgressReport* req,
                                        v1::ProgressReply* resp) {
  if (g_.fenced()) return SteppingDown();
  if (auto st = AuthorizeAgent(*ctx, *g_.authenticator, req->job_id(), req->epoch()); !st.ok()) return st;
  SYNERGY_VALIDATE(service::ValidateProgressReport(*req));
  // The common case, a report under an open lease, without the lock.
  if (g_.board->Take(*req, *resp)) return grpc::Status::OK;
  absl::MutexLock lock(&g_.mu);
  auto r = g_.state->ReportProgress(*req, NowUnixMs());
  if (!r.ok()) return ToGrpc(r.status());
  *resp = std::move(*r);
  return grpc::Status::OK;
}

grpc::Status AgentServiceImpl::ConfirmCheckpoint(grpc::ServerContext* ctx, const v1::CheckpointDone* req,
                                                 v1::CheckpointAck*) {
  if (g_.fenced()) return SteppingDown();
  if (auto st = AuthorizeAgent(*ctx, *g_.authenticator, req->job_id(), req->epoch()); !st.ok()) return st;
  SYNERGY_VALIDATE(service::ValidateCheckpointDone(*req));
  absl::MutexLock lock(&g_.mu);
  return ToGrpc(g_.state->ConfirmCheckpoint(*req, NowUnixMs()));
}

grpc::Status AgentServiceImpl::SubmitProfile(grpc::ServerContext* ctx, const v1::MeasuredProfile* req,
                                             v1::ProfileAck*) {
  if (g_.fenced()) return SteppingDown();
  if (auto st = AuthorizeAgent(*ctx, *g_.authenticator, req->job_id(), req->epoch()); !st.ok()) return st;
  SYNERGY_VALIDATE(service::ValidateMeasuredProfile(*req));
  absl::MutexLock lock(&g_.mu);
  return ToGrpc(g_.state->SubmitProfile(*req, NowUnixMs()));
}

}  // namespace synergy::daemon
