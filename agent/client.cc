#include "client.h"

#include <thread>

namespace synergy::agent {

Client::Client(const std::string& scheduler, std::chrono::milliseconds patience)
    : patience_(patience) {
  // Reconnect quickly when synergyd restarts; calls retry meanwhile.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  stub_ = v1::AgentService::NewStub(grpc::CreateCustomChannel(scheduler, grpc::InsecureChannelCredentials(), args));
}

template <typename F>
grpc::Status Client::Retrying(F call) {
  const auto deadline = std::chrono::steady_clock::now() + patience_;
  while (true) {
    grpc::Status st = call();
    if (st.error_code() != grpc::StatusCode::UNAVAILABLE || std::chrono::steady_clock::now() > deadline) return st;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

grpc::Status Client::Register(const v1::AgentHello& hello, v1::AgentWelcome* welcome) {
  return Retrying([&] {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return stub_->RegisterAgent(&ctx, hello, welcome);
  });
}

grpc::Status Client::Report(const v1::ProgressReport& report, v1::ProgressReply* reply) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  return stub_->ReportProgress(&ctx, report, reply);
}

grpc::Status Client::Confirm(const v1::CheckpointDone& done) {
  return Retrying([&] {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::CheckpointAck ack;
    return stub_->ConfirmCheckpoint(&ctx, done, &ack);
  });
}

grpc::Status Client::SubmitProfile(const v1::MeasuredProfile& profile) {
  return Retrying([&] {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ProfileAck ack;
    return stub_->SubmitProfile(&ctx, profile, &ack);
  });
}

}  // namespace synergy::agent
