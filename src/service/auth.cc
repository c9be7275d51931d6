#include "service/auth.h"

#include <chrono>

namespace synergy::service {

std::string BearerOf(const grpc::ServerContextBase& context) {
  const auto& md = context.client_metadata();
  auto it = md.find(kAuthorizationKey);
  if (it == md.end()) return "";
  const std::string value(it->second.data(), it->second.size());
  const std::string prefix = "Bearer ";
  if (value.rfind(prefix, 0) == 0) return value.substr(prefix.size());
  return "";
}

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace synergy::service
