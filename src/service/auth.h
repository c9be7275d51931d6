#pragma once
// Tokens on the wire: a mutating call carries "authorization: Bearer <token>"
// metadata; the daemon compares it with its configured tokens.
#include <cstdint>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"

namespace synergy::service {

inline constexpr const char* kAuthorizationKey = "authorization";

// Adds the token to an outgoing call (nothing when empty).
void AttachToken(grpc::ClientContext& context, const std::string& token);

// The bearer token of an incoming call, "" when absent.
std::string TokenOf(const grpc::ServerContext& context);

// OK when `tokens` is empty (auth off) or holds the call's token; else
// UNAUTHENTICATED naming what is missing.
grpc::Status CheckToken(const grpc::ServerContext& context, const std::vector<std::string>& tokens);

// Milliseconds since the Unix epoch, wall clock.
int64_t NowUnixMs();

}  // namespace synergy::service
