#pragma once
// How synergyd's gRPC port meets the network: TLS credentials from the
// configured files (mutual TLS when a client CA is given), the largest
// message it accepts, and malformed requests answered as INVALID_ARGUMENT.
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "daemon/server/config.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/server_interceptor.h"
#include "service/request_limits.h"
#include "service/tls_check.h"

namespace synergy::daemon {

// The largest request synergyd reads, and the largest reply it sends.
inline constexpr int kMaxReceiveMessageBytes = service::kMaxGrpcMessageBytes;
inline constexpr int kMaxSendMessageBytes = 64 << 20;
// Unauthenticated peers' share of the daemon: a TLS handshake must finish
// within this, a connection may carry this many calls at once, and gRPC's
// buffers for every call together stay within the quota.
inline constexpr int kHandshakeTimeoutMs = 10000;
inline constexpr int kMaxStreamsPerConnection = 100;
// A connection without a call this long is closed (its client reconnects
// on its next call): idle connections do not hold descriptors and memory
// for ever. Nodes heartbeat every second and never reach it.
inline constexpr int kMaxConnectionIdleMs = 120000;
inline constexpr size_t kMemoryQuotaBytes = size_t{512} << 20;
// Idle threads the sync server keeps polling between bursts of calls.
inline constexpr int kMaxIdlePollers = 8;

// TLS from tls.cert/tls.key (client certificates verified against
// tls.client_ca when set, requested but not required: users and agents
// have none), or plain text with tls.plaintext. InvalidArgument naming an
// unreadable or non-PEM file.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(const TlsConfig& tls);

// synergyd's certificate and key as configured (service::CheckServingCertificate):
// a key that is not the certificate's, an expired certificate or one not
// yet valid at `now_unix_s` is refused naming the files; the certificate's
// dates otherwise; nullopt under tls.plaintext.
absl::StatusOr<std::optional<service::CertificateDates>> CheckServingFiles(const TlsConfig& tls, int64_t now_unix_s);

// A request that does not parse as its message (invalid UTF-8 in a string
// field, truncated bytes) reaches no handler; gRPC answers INTERNAL with an
// empty message. This interceptor turns exactly that answer into
// INVALID_ARGUMENT, since the fault is the caller's.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> MalformedRequestInterceptorFactory();

}  // namespace synergy::daemon
