#pragma once
// The agent's calls to synergyd (AgentService), each retried while synergyd
// is unavailable (it may be restarting) for up to `patience`.
#include <chrono>
#include <memory>
#include <string>

#include "grpcpp/grpcpp.h"
#include "synergy/v1/synergy.grpc.pb.h"

namespace synergy::agent {

class Client {
 public:
  explicit Client(const std::string& scheduler,
                  std::chrono::milliseconds patience = std::chrono::seconds(60));
  grpc::Status Register(const v1::AgentHello& hello, v1::AgentWelcome* welcome);
  // Progress is not retried: the next report carries newer numbers.
  grpc::Status Report(const v1::ProgressReport& report, v1::ProgressReply* reply);
  grpc::Status Confirm(const v1::CheckpointDone& done);
  grpc::Status SubmitProfile(const v1::MeasuredProfile& profile);

 private:
  template <typename F>
  grpc::Status Retrying(F call);
  std::unique_ptr<v1::AgentService::Stub> stub_;
  std::chrono::milliseconds patience_;
};

}  // namespace synergy::agent
