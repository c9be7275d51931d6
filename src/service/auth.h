#pragma once
// Credentials on the wire: every call carries "authorization: Bearer
// <credential>" metadata (service/channel.h attaches it); synergyd reads it
// here and decides who called (daemon/api/authenticator.h).
#include <cstdint>
#include <string>

#include "grpcpp/grpcpp.h"

namespace synergy::service {

inline constexpr const char* kAuthorizationKey = "authorization";

// The bearer credential of an incoming call, "" when absent or not of the
// form "Bearer <credential>".
std::string BearerOf(const grpc::ServerContextBase& context);

// Milliseconds since the Unix epoch, wall clock.
int64_t NowUnixMs();

}  // namespace synergy::service
