// TLS failures in words: synergyd's checks of its own certificate, and a
// client's explanation of a failed handshake against a real gRPC server on
// loopback, with certificates made here (OpenSSL): a CA, another CA, a
// certificate for localhost/127.0.0.1, an expired one and one not valid yet.
#include "service/tls_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "daemon/server/server.h"
#include "spdlog/spdlog.h"
#include "synergy/v1/synergy.grpc.pb.h"

namespace synergy {
namespace {

using ::testing::HasSubstr;

struct Pem {
  std::string cert;
  std::string key;
};

std::string KeyPem(EVP_PKEY* key) {
  BIO* out = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(out, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(out, &data);
  std::string pem(data, static_cast<size_t>(n));
  BIO_free(out);
  return pem;
}

std::string CertPem(X509* cert) {
  BIO* out = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(out, cert);
  char* data = nullptr;
  const long n = BIO_get_mem_data(out, &data);
  std::string pem(data, static_cast<size_t>(n));
  BIO_free(out);
  return pem;
}

// A certificate for `cn` valid from now+`from_s` to now+`to_s`, with
// `san` ("DNS:localhost,IP:127.0.0.1", "" none), signed by `issuer` (its
// own key where null: a CA).
Pem MakeCertificate(const std::string& cn, long from_s, long to_s, const std::string& san, const Pem* issuer) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  static long serial = 1;
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial++);
  X509_gmtime_adj(X509_getm_notBefore(cert), from_s);
  X509_gmtime_adj(X509_getm_notAfter(cert), to_s);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509* issuer_cert = nullptr;
  EVP_PKEY* issuer_key = key;
  if (issuer != nullptr) {
    BIO* in = BIO_new_mem_buf(issuer->cert.data(), static_cast<int>(issuer->cert.size()));
    issuer_cert = PEM_read_bio_X509(in, nullptr, nullptr, nullptr);
    BIO_free(in);
    in = BIO_new_mem_buf(issuer->key.data(), static_cast<int>(issuer->key.size()));
    issuer_key = PEM_read_bio_PrivateKey(in, nullptr, nullptr, nullptr);
    BIO_free(in);
    X509_set_issuer_name(cert, X509_get_subject_name(issuer_cert));
  } else {
    X509_set_issuer_name(cert, name);
  }
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer_cert != nullptr ? issuer_cert : cert, cert, nullptr, nullptr, 0);
  auto add = [&](int nid, const std::string& value) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
  };
  add(NID_basic_constraints, issuer == nullptr ? "critical,CA:TRUE" : "CA:FALSE");
  if (issuer == nullptr) add(NID_key_usage, "critical,keyCertSign,cRLSign");
  if (!san.empty()) add(NID_subject_alt_name, san);
  X509_sign(cert, issuer_key, EVP_sha256());
  Pem pem{CertPem(cert), KeyPem(key)};
  if (issuer_key != key) EVP_PKEY_free(issuer_key);
  X509_free(issuer_cert);
  X509_free(cert);
  EVP_PKEY_free(key);
  return pem;
}

constexpr long kDay = 24 * 3600;
constexpr const char* kLoopbackNames = "DNS:localhost,IP:127.0.0.1";

class TlsCheckTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ca_ = new Pem(MakeCertificate("synergy test CA", -kDay, 30 * kDay, "", nullptr));
    other_ca_ = new Pem(MakeCertificate("another CA", -kDay, 30 * kDay, "", nullptr));
    good_ = new Pem(MakeCertificate("synergyd", -kDay, 30 * kDay, kLoopbackNames, ca_));
    expired_ = new Pem(MakeCertificate("synergyd", -10 * kDay, -kDay, kLoopbackNames, ca_));
    future_ = new Pem(MakeCertificate("synergyd", 5 * kDay, 30 * kDay, kLoopbackNames, ca_));
  }
  void SetUp() override {
    spdlog::set_level(spdlog::level::off);
    dir_ = std::filesystem::temp_directory_path() / ("synergy-tls-check-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    ca_file_ = Write("ca.crt", ca_->cert);
    other_ca_file_ = Write("other-ca.crt", other_ca_->cert);
  }
  void TearDown() override {
    for (auto& s : servers_) s->Shutdown();
    std::filesystem::remove_all(dir_);
  }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  // A gRPC server on loopback serving `pem` (plain text where null); its
  // target.
  std::string Serve(const Pem* pem) {
    grpc::ServerBuilder builder;
    int port = 0;
    std::shared_ptr<grpc::ServerCredentials> creds = grpc::InsecureServerCredentials();
    if (pem != nullptr) {
      grpc::SslServerCredentialsOptions options;
      options.pem_key_cert_pairs.push_back({pem->key, pem->cert});
      creds = grpc::SslServerCredentials(options);
    }
    builder.AddListeningPort("127.0.0.1:0", creds, &port);
    builder.RegisterService(&service_);
    servers_.push_back(builder.BuildAndStart());
    return "127.0.0.1:" + std::to_string(port);
  }
  static int64_t Now() { return time(nullptr); }

  static Pem* ca_;
  static Pem* other_ca_;
  static Pem* good_;
  static Pem* expired_;
  static Pem* future_;
  std::filesystem::path dir_;
  std::string ca_file_, other_ca_file_;
  v1::SchedulerService::Service service_;  // every method UNIMPLEMENTED: only the handshake matters
  std::vector<std::unique_ptr<grpc::Server>> servers_;
};
Pem* TlsCheckTest::ca_ = nullptr;
Pem* TlsCheckTest::other_ca_ = nullptr;
Pem* TlsCheckTest::good_ = nullptr;
Pem* TlsCheckTest::expired_ = nullptr;
Pem* TlsCheckTest::future_ = nullptr;

TEST_F(TlsCheckTest, SynergydsOwnPairIsCheckedForItsKeyAndItsDates) {
  auto dates = service::CheckServingCertificate(good_->cert, good_->key, "tls.cert 'c'", "tls.key 'k'", Now());
  ASSERT_TRUE(dates.ok()) << dates.status();
  EXPECT_NEAR(dates->not_after_unix_s - Now(), 30 * kDay, 60);
  EXPECT_EQ(dates->subject, "CN=synergyd");
  const auto mismatch =
      service::CheckServingCertificate(good_->cert, other_ca_->key, "tls.cert 'c'", "tls.key 'k'", Now());
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(mismatch.status().message()), HasSubstr("tls.key 'k' is not the key of tls.cert 'c'"));
  const auto expired =
      service::CheckServingCertificate(expired_->cert, expired_->key, "tls.cert 'c'", "tls.key 'k'", Now());
  EXPECT_EQ(expired.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(expired.status().message()),
              HasSubstr("tls.cert 'c' (CN=synergyd) expired on " + service::FormatUtc(Now() - kDay).substr(0, 10)));
  const auto future =
      service::CheckServingCertificate(future_->cert, future_->key, "tls.cert 'c'", "tls.key 'k'", Now());
  EXPECT_THAT(std::string(future.status().message()), HasSubstr("is not valid until"));
  EXPECT_EQ(
      service::CheckServingCertificate("not pem", good_->key, "tls.cert 'c'", "tls.key 'k'", Now()).status().code(),
      absl::StatusCode::kInvalidArgument);
}

TEST_F(TlsCheckTest, AFailedHandshakeIsExplainedByItsCause) {
  const std::string good = Serve(good_);
  service::ChannelSecurity security;
  security.ca_file = ca_file_;
  EXPECT_TRUE(service::ExplainTlsFailure(good, security, Now()).ok());
  // No CA given: the system's roots do not know the test CA.
  service::ChannelSecurity no_ca;
  EXPECT_THAT(std::string(service::ExplainTlsFailure(good, no_ca, Now()).message()),
              HasSubstr("no CA given: synergyd's certificate at " + good +
                        " (CN=synergyd) is signed by "
                        "'CN=synergy test CA'"));
  service::ChannelSecurity wrong_ca;
  wrong_ca.ca_file = other_ca_file_;
  EXPECT_THAT(std::string(service::ExplainTlsFailure(good, wrong_ca, Now()).message()),
              HasSubstr("is not signed by the CA in " + other_ca_file_));
  service::ChannelSecurity other_name = security;
  other_name.server_name = "scheduler.example.org";
  EXPECT_THAT(std::string(service::ExplainTlsFailure(good, other_name, Now()).message()),
              HasSubstr("name mismatch: expected scheduler.example.org, the certificate at " + good +
                        " has DNS:localhost, IP:127.0.0.1"));
  EXPECT_THAT(std::string(service::ExplainTlsFailure(Serve(expired_), security, Now()).message()),
              HasSubstr("(CN=synergyd) expired on"));
  EXPECT_THAT(std::string(service::ExplainTlsFailure(Serve(future_), security, Now()).message()),
              HasSubstr("is not valid until"));
  EXPECT_THAT(std::string(service::ExplainTlsFailure(Serve(nullptr), security, Now()).message()),
              HasSubstr("does not speak TLS"));
}

TEST_F(TlsCheckTest, SynergydRefusesToStartOnAnExpiredCertificateOrAKeyThatIsNotItsOwn) {
  daemon::DaemonConfig config;
  config.listen = "127.0.0.1:0";
  config.metrics_listen = "";
  config.state_db = (dir_ / "state.db").string();
  config.tls.cert = Write("expired.crt", expired_->cert);
  config.tls.key = Write("expired.key", expired_->key);
  auto expired = daemon::Daemon::Start(config);
  EXPECT_EQ(expired.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(expired.status().message()), HasSubstr("expired on"));
  config.tls.cert = Write("good.crt", good_->cert);
  config.tls.key = Write("other.key", other_ca_->key);
  auto mismatch = daemon::Daemon::Start(config);
  EXPECT_THAT(std::string(mismatch.status().message()), HasSubstr("is not the key of tls.cert"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state.db")) << "the state was opened before the refusal";
}

}  // namespace
}  // namespace synergy
