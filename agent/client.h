#pragma once
// The agent's calls to synergyd (AgentService), each carrying the lease's
// credential and retried while synergyd is unavailable (it may be
// restarting, or a standby taking over) for up to `patience`. The lease's
// scheduler may list several addresses (a leader and its standbys): calls
// move on to the next after UNAVAILABLE or DEADLINE_EXCEEDED (synergyd
// down, a standby, or a paused leader), and are retried (every call here
// is idempotent in synergyd: a registration, a checkpoint confirmed again,
// a profile submitted again).
#include <chrono>
#include <functional>
#include <mutex>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "synergy/agent.h"
#include "synergy/v1/synergy.grpc.pb.h"

namespace synergy::agent {

class Client {
 public:
  // A channel as the lease says (TLS or explicit plain text to loopback);
  // InvalidArgument/FailedPrecondition from service::OpenChannel.
  static absl::StatusOr<std::unique_ptr<Client>> Open(const LeaseInfo& lease,
                                                      std::chrono::milliseconds patience = std::chrono::seconds(60));
  grpc::Status Register(const v1::AgentHello& hello, v1::AgentWelcome* welcome);
  // Progress is not retried: the next report carries newer numbers.
  grpc::Status Report(const v1::ProgressReport& report, v1::ProgressReply* reply);
  grpc::Status Confirm(const v1::CheckpointDone& done);
  grpc::Status SubmitProfile(const v1::MeasuredProfile& profile);

 private:
  using Connect = std::function<absl::StatusOr<std::shared_ptr<grpc::Channel>>()>;
  Client(Connect connect, std::shared_ptr<grpc::Channel> channel, std::string credential,
         std::chrono::milliseconds patience);
  // The stub to call through; after UNAVAILABLE or DEADLINE_EXCEEDED, one
  // on a new channel to
  // the next address (service::LeaderChannels: the leader may have moved;
  // gRPC 1.51's TLS channels can stay failed after synergyd restarts,
  // grpc/grpc#33593), unless another call replaced `failed` already.
  std::shared_ptr<v1::AgentService::Stub> Stub();
  void Reconnect(const std::shared_ptr<v1::AgentService::Stub>& failed);
  template <typename F>
  grpc::Status Retrying(F call);
  std::unique_ptr<grpc::ClientContext> Context(std::chrono::seconds timeout) const;
  Connect connect_;
  std::string credential_;
  std::mutex stub_mu_;  // guards stub_: reports and confirmations run on different threads
  std::shared_ptr<v1::AgentService::Stub> stub_;
  std::chrono::milliseconds patience_;
};

}  // namespace synergy::agent
