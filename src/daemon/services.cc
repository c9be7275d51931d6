#include "daemon/services.h"

#include "service/auth.h"

namespace synergy::daemon {

using service::CheckToken;
using service::NowUnixMs;

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  grpc::StatusCode code = grpc::StatusCode::INTERNAL;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument: code = grpc::StatusCode::INVALID_ARGUMENT; break;
    case absl::StatusCode::kNotFound: code = grpc::StatusCode::NOT_FOUND; break;
    case absl::StatusCode::kFailedPrecondition: code = grpc::StatusCode::FAILED_PRECONDITION; break;
    case absl::StatusCode::kUnavailable: code = grpc::StatusCode::UNAVAILABLE; break;
    case absl::StatusCode::kUnauthenticated: code = grpc::StatusCode::UNAUTHENTICATED; break;
    case absl::StatusCode::kDataLoss: code = grpc::StatusCode::DATA_LOSS; break;
    default: break;
  }
  return grpc::Status(code, std::string(status.message()));
}

#define SYNERGY_CHECK_TOKEN(ctx)                                             \
  do {                                                                       \
    grpc::Status auth = CheckToken(*(ctx), g_.state->config().tokens);       \
    if (!auth.ok()) return auth;                                             \
  } while (0)

grpc::Status SchedulerServiceImpl::SubmitJob(grpc::ServerContext* ctx, const v1::SubmitJobRequest* req,
                                             v1::SubmitJobResponse* resp) {
  SYNERGY_CHECK_TOKEN(ctx);
  std::lock_guard lock(g_.mu);
  auto id = g_.state->Submit(req->spec(), NowUnixMs());
  if (!id.ok()) return ToGrpc(id.status());
  resp->set_job_id(*id);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::CancelJob(grpc::ServerContext* ctx, const v1::CancelJobRequest* req,
                                             v1::CancelJobResponse* resp) {
  SYNERGY_CHECK_TOKEN(ctx);
  std::lock_guard lock(g_.mu);
  auto job = g_.state->Cancel(req->job_id(), NowUnixMs());
  if (!job.ok()) return ToGrpc(job.status());
  *resp->mutable_job() = std::move(*job);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::GetJob(grpc::ServerContext*, const v1::GetJobRequest* req, v1::Job* resp) {
  std::lock_guard lock(g_.mu);
  auto job = g_.state->GetJob(req->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  *resp = std::move(*job);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::ListJobs(grpc::ServerContext*, const v1::ListJobsRequest* req,
                                            v1::ListJobsResponse* resp) {
  std::set<int> states(req->states().begin(), req->states().end());
  std::lock_guard lock(g_.mu);
  for (v1::Job& j : g_.state->ListJobs(states)) *resp->add_jobs() = std::move(j);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::ListNodes(grpc::ServerContext*, const v1::ListNodesRequest*,
                                             v1::ListNodesResponse* resp) {
  std::lock_guard lock(g_.mu);
  for (v1::Node& n : g_.state->ListNodes(NowUnixMs())) *resp->add_nodes() = std::move(n);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::GetClusterState(grpc::ServerContext*, const v1::ClusterStateRequest*,
                                                   v1::ClusterState* resp) {
  std::lock_guard lock(g_.mu);
  *resp = g_.state->Cluster();
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::DrainNode(grpc::ServerContext* ctx, const v1::DrainNodeRequest* req,
                                             v1::DrainNodeResponse* resp) {
  SYNERGY_CHECK_TOKEN(ctx);
  std::lock_guard lock(g_.mu);
  auto node = g_.state->SetDrained(req->name(), true, NowUnixMs());
  if (!node.ok()) return ToGrpc(node.status());
  *resp->mutable_node() = std::move(*node);
  return grpc::Status::OK;
}

grpc::Status SchedulerServiceImpl::UndrainNode(grpc::ServerContext* ctx, const v1::DrainNodeRequest* req,
                                               v1::DrainNodeResponse* resp) {
  SYNERGY_CHECK_TOKEN(ctx);
  std::lock_guard lock(g_.mu);
  auto node = g_.state->SetDrained(req->name(), false, NowUnixMs());
  if (!node.ok()) return ToGrpc(node.status());
  *resp->mutable_node() = std::move(*node);
  return grpc::Status::OK;
}

grpc::Status NodeServiceImpl::RegisterNode(grpc::ServerContext* ctx, const v1::RegisterNodeRequest* req,
                                           v1::RegisterNodeResponse* resp) {
  SYNERGY_CHECK_TOKEN(ctx);
  if (req->name().empty()) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "name: required");
  std::lock_guard lock(g_.mu);
  resp->set_heartbeat_interval_ms(g_.state->RegisterNode(*req, NowUnixMs()));
  return grpc::Status::OK;
}

grpc::Status NodeServiceImpl::Heartbeat(grpc::ServerContext* ctx, const v1::HeartbeatRequest* req,
                                        v1::HeartbeatResponse* resp) {
  SYNERGY_CHECK_TOKEN(ctx);
  std::lock_guard lock(g_.mu);
  *resp = g_.state->Heartbeat(*req, NowUnixMs());
  return grpc::Status::OK;
}

grpc::Status AgentServiceImpl::RegisterAgent(grpc::ServerContext*, const v1::AgentHello* req,
                                             v1::AgentWelcome* resp) {
  std::lock_guard lock(g_.mu);
  auto w = g_.state->RegisterAgent(*req, NowUnixMs());
  if (!w.ok()) return ToGrpc(w.status());
  *resp = std::move(*w);
  return grpc::Status::OK;
}

grpc::Status AgentServiceImpl::ReportProgress(grpc::ServerContext*, const v1::ProgressReport* req,
                                              v1::ProgressReply* resp) {
  std::lock_guard lock(g_.mu);
  auto r = g_.state->ReportProgress(*req, NowUnixMs());
  if (!r.ok()) return ToGrpc(r.status());
  *resp = std::move(*r);
  return grpc::Status::OK;
}

grpc::Status AgentServiceImpl::ConfirmCheckpoint(grpc::ServerContext*, const v1::CheckpointDone* req,
                                                 v1::CheckpointAck*) {
  std::lock_guard lock(g_.mu);
  return ToGrpc(g_.state->ConfirmCheckpoint(*req, NowUnixMs()));
}

grpc::Status AgentServiceImpl::SubmitProfile(grpc::ServerContext*, const v1::MeasuredProfile* req,
                                             v1::ProfileAck*) {
  std::lock_guard lock(g_.mu);
  return ToGrpc(g_.state->SubmitProfile(*req, NowUnixMs()));
}

}  // namespace synergy::daemon
