#include "client.h"

#include <thread>

#include "service/channel.h"

namespace synergy::agent {

absl::StatusOr<std::unique_ptr<Client>> Client::Open(const LeaseInfo& lease, std::chrono::milliseconds patience) {
  service::ChannelSecurity security;
  security.plaintext = lease.plaintext;
  security.ca_file = lease.tls_ca;
  security.server_name = lease.tls_server_name;
  if (auto st = service::ValidateCredentialText(lease.credential, "SYNERGY_AGENT_TOKEN"); !st.ok()) return st;
  // Reconnect quickly when synergyd restarts; calls retry meanwhile.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  const std::string target = lease.scheduler.empty() ? "127.0.0.1:50051" : lease.scheduler;
  const bool sends = !lease.credential.empty();
  // Several addresses (a leader and its standbys): a call that finds one
  // unavailable moves on to the next.
  auto channels = service::LeaderChannels::Open(target, "SYNERGY_SCHEDULER", security, sends, args);
  if (!channels.ok()) return channels.status();
  Connect connect = [channels = *channels]() -> absl::StatusOr<std::shared_ptr<grpc::Channel>> {
    return channels->Next();
  };
  return std::unique_ptr<Client>(new Client(connect, (*channels)->current(), lease.credential, patience));
}

Client::Client(Connect connect, std::shared_ptr<grpc::Channel> channel, std::string credential,
               std::chrono::milliseconds patience)
    : connect_(std::move(connect)),
      credential_(std::move(credential)),
      stub_(v1::AgentService::NewStub(channel)),
      patience_(patience) {}

std::shared_ptr<v1::AgentService::Stub> Client::Stub() {
  std::lock_guard lock(stub_mu_);
  return stub_;
}

void Client::Reconnect(const std::shared_ptr<v1::AgentService::Stub>& failed) {
  std::lock_guard lock(stub_mu_);
  if (stub_ != failed) return;  // another call has moved on already
  auto channel = connect_();
  if (channel.ok()) stub_ = v1::AgentService::NewStub(*channel);
}

std::unique_ptr<grpc::ClientContext> Client::Context(std::chrono::seconds timeout) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + timeout);
  service::AttachCredential(*ctx, credential_);
  return ctx;
}

namespace {
// synergyd down or a standby (UNAVAILABLE), or silent (a paused leader):
// worth the next address and another try.
bool ElsewhereMaybe(const grpc::Status& st) {
  return st.error_code() == grpc::StatusCode::UNAVAILABLE || st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}
}  // namespace

template <typename F>
grpc::Status Client::Retrying(F call) {
  const auto deadline = std::chrono::steady_clock::now() + patience_;
  while (true) {
    const std::shared_ptr<v1::AgentService::Stub> stub = Stub();
    grpc::Status st = call(*stub);
    if (!ElsewhereMaybe(st) || std::chrono::steady_clock::now() > deadline) return st;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    Reconnect(stub);
  }
}

grpc::Status Client::Register(const v1::AgentHello& hello, v1::AgentWelcome* welcome) {
  return Retrying([&](v1::AgentService::Stub& stub) {
    return stub.RegisterAgent(Context(std::chrono::seconds(10)).get(), hello, welcome);
  });
}

grpc::Status Client::Report(const v1::ProgressReport& report, v1::ProgressReply* reply) {
  const std::shared_ptr<v1::AgentService::Stub> stub = Stub();
  grpc::Status st = stub->ReportProgress(Context(std::chrono::seconds(5)).get(), report, reply);
  if (ElsewhereMaybe(st)) Reconnect(stub);
  return st;
}

grpc::Status Client::Confirm(const v1::CheckpointDone& done) {
  return Retrying([&](v1::AgentService::Stub& stub) {
    v1::CheckpointAck ack;
    return stub.ConfirmCheckpoint(Context(std::chrono::seconds(10)).get(), done, &ack);
  });
}

grpc::Status Client::SubmitProfile(const v1::MeasuredProfile& profile) {
  return Retrying([&](v1::AgentService::Stub& stub) {
    v1::ProfileAck ack;
    return stub.SubmitProfile(Context(std::chrono::seconds(10)).get(), profile, &ack);
  });
}

}  // namespace synergy::agent
