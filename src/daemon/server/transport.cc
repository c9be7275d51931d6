#include "daemon/server/transport.h"


#include "absl/strings/str_cat.h"
#include "service/channel.h"

namespace synergy::daemon {
namespace {

class MalformedRequestInterceptor final : public grpc::experimental::Interceptor {
 public:
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status st = methods->GetSendStatus();
      // Our handlers never answer INTERNAL without a message; gRPC's
      // deserializer does (proto_utils.h: InitializationErrorString(),
      // empty for proto3), and "No payload" for an empty frame.
      if (st.error_code() == grpc::StatusCode::INTERNAL &&
          (st.error_message().empty() || st.error_message() == "No payload")) {
        methods->ModifySendStatus(grpc::Status(
            grpc::StatusCode::INVALID_ARGUMENT,
            "request: not a valid message of this call (a string field that is not UTF-8?)"));
      }
    }
    methods->Proceed();
  }
};

class MalformedRequestFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo*) override {
    return new MalformedRequestInterceptor();
  }
};

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(const TlsConfig& tls) {
  if (tls.plaintext) return grpc::InsecureServerCredentials();
  auto cert = service::ReadPemFile(tls.cert, "tls.cert");
  if (!cert.ok()) return cert.status();
  auto key = service::ReadPemFile(tls.key, "tls.key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back({*key, *cert});
  if (!tls.client_ca.empty()) {
    auto ca = service::ReadPemFile(tls.client_ca, "tls.client_ca");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
    options.client_certificate_request = GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::optional<service::CertificateDates>> CheckServingFiles(const TlsConfig& tls, int64_t now_unix_s) {
  if (tls.plaintext) return std::nullopt;
  auto cert = service::ReadPemFile(tls.cert, "tls.cert");
  if (!cert.ok()) return cert.status();
  auto key = service::ReadPemFile(tls.key, "tls.key");
  if (!key.ok()) return key.status();
  auto dates = service::CheckServingCertificate(*cert, *key, absl::StrCat("tls.cert '", tls.cert, "'"),
                                                absl::StrCat("tls.key '", tls.key, "'"), now_unix_s);
  if (!dates.ok()) return dates.status();
  return std::optional<service::CertificateDates>(*dates);
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> MalformedRequestInterceptorFactory() {
  return std::make_unique<MalformedRequestFactory>();
}

}  // namespace synergy::daemon
