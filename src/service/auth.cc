#include "service/auth.h"

#include <algorithm>
#include <chrono>

namespace synergy::service {

void AttachToken(grpc::ClientContext& context, const std::string& token) {
  if (!token.empty()) context.AddMetadata(kAuthorizationKey, "Bearer " + token);
}

std::string TokenOf(const grpc::ServerContext& context) {
  const auto& md = context.client_metadata();
  auto it = md.find(kAuthorizationKey);
  if (it == md.end()) return "";
  std::string value(it->second.data(), it->second.size());
  const std::string prefix = "Bearer ";
  if (value.rfind(prefix, 0) == 0) return value.substr(prefix.size());
  return "";
}

grpc::Status CheckToken(const grpc::ServerContext& context, const std::vector<std::string>& tokens) {
  if (tokens.empty()) return grpc::Status::OK;
  const std::string token = TokenOf(context);
  if (token.empty()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "no token: this call needs 'authorization: Bearer <token>' "
                        "(synergyctl --token or SYNERGY_TOKEN)");
  }
  if (std::find(tokens.begin(), tokens.end(), token) == tokens.end()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "token not accepted");
  }
  return grpc::Status::OK;
}

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace synergy::service
