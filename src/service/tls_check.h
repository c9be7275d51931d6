#pragma once
// TLS certificates in words an operator acts on. synergyd checks its own
// certificate at start (a key that is not the certificate's, expired, not
// valid yet, expiring soon); a client whose call failed on TLS asks why,
// with a handshake of its own (OpenSSL), and says it in one line: no CA
// given, not signed by the CA in FILE, expired on DATE, not valid yet, or
// the name it expected and the names the certificate has; instead of
// gRPC's "ssl_transport_security.cc ... certificate verify failed", which
// is the same for all of them.
#include <chrono>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "service/channel.h"

namespace synergy::service {

struct CertificateDates {
  int64_t not_before_unix_s = 0;
  int64_t not_after_unix_s = 0;
  std::string subject;  // one line, e.g. "CN=synergyd"
};

// The first certificate of `pem`; InvalidArgument naming `what` (e.g.
// "tls.cert '/etc/synergy/synergyd.crt'") when there is none.
absl::StatusOr<CertificateDates> ReadCertificateDates(const std::string& pem, const std::string& what);

// synergyd's own certificate and key, as read from `cert_what` and
// `key_what` (the setting and its file): InvalidArgument where the key is
// not the certificate's key, or either does not parse; FailedPrecondition
// where the certificate expired or is not valid yet at `now_unix_s`. Its
// dates otherwise.
absl::StatusOr<CertificateDates> CheckServingCertificate(const std::string& cert_pem, const std::string& key_pem,
                                                         const std::string& cert_what, const std::string& key_what,
                                                         int64_t now_unix_s);

// "2026-12-07 21:04:05 UTC".
std::string FormatUtc(int64_t unix_s);

// Why a TLS connection to `target` ("host:port", "[v6]:port") as `security`
// says fails, in one line naming the cause; OK where a handshake and the
// checks pass (the call failed for another reason), or where `target` is
// not one host and port. UNAVAILABLE where nothing answers within
// `timeout`.
absl::Status ExplainTlsFailure(const std::string& target, const ChannelSecurity& security, int64_t now_unix_s,
                               std::chrono::milliseconds timeout = std::chrono::seconds(3));

// Whether a gRPC error message is a TLS failure worth explaining.
bool LooksLikeTlsFailure(const std::string& grpc_message);

}  // namespace synergy::service
