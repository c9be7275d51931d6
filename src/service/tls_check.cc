#include "service/tls_check.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ctime>
#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace synergy::service {
namespace {

template <typename T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
using Bio = std::unique_ptr<BIO, Freer<BIO, BIO_free_all>>;
using Cert = std::unique_ptr<X509, Freer<X509, X509_free>>;
using Key = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;
using SslCtx = std::unique_ptr<SSL_CTX, Freer<SSL_CTX, SSL_CTX_free>>;
using Ssl = std::unique_ptr<SSL, Freer<SSL, SSL_free>>;
using Store = std::unique_ptr<X509_STORE, Freer<X509_STORE, X509_STORE_free>>;
using StoreCtx = std::unique_ptr<X509_STORE_CTX, Freer<X509_STORE_CTX, X509_STORE_CTX_free>>;

Bio MemoryBio(const std::string& text) { return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size()))); }

int64_t UnixSeconds(const ASN1_TIME* t) {
  std::tm tm{};
  if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

std::string NameLine(const X509_NAME* name) {
  Bio out(BIO_new(BIO_s_mem()));
  X509_NAME_print_ex(out.get(), name, 0, XN_FLAG_RFC2253);
  char* data = nullptr;
  const long n = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

CertificateDates DatesOf(const X509* cert) {
  return CertificateDates{UnixSeconds(X509_get0_notBefore(cert)), UnixSeconds(X509_get0_notAfter(cert)),
                          NameLine(X509_get_subject_name(cert))};
}

std::string OpenSslError() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

// "DNS:a, IP:127.0.0.1": the names the certificate is valid for.
std::string NamesOf(X509* cert) {
  std::vector<std::string> out;
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; names != nullptr && i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS) {
      const ASN1_STRING* s = n->d.dNSName;
      out.push_back(absl::StrCat("DNS:", std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                                                     static_cast<size_t>(ASN1_STRING_length(s)))));
    } else if (n->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* s = n->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = {0};
      const int family = ASN1_STRING_length(s) == 4 ? AF_INET : AF_INET6;
      if (inet_ntop(family, ASN1_STRING_get0_data(s), text, sizeof(text)) != nullptr)
        out.push_back(absl::StrCat("IP:", text));
    }
  }
  GENERAL_NAMES_free(names);
  if (out.empty()) return absl::StrCat("no subjectAltName (subject ", NameLine(X509_get_subject_name(cert)), ")");
  return absl::StrJoin(out, ", ");
}

// host and port of "host:port" or "[v6]:port"; false for anything else.
bool SplitHostPort(const std::string& target, std::string& host, std::string& port) {
  if (target.empty() || absl::StrContains(target, "://") || absl::StartsWith(target, "unix:")) return false;
  if (target[0] == '[') {
    const size_t end = target.find("]:");
    if (end == std::string::npos) return false;
    host = target.substr(1, end - 1);
    port = target.substr(end + 2);
  } else {
    const size_t colon = target.rfind(':');
    if (colon == std::string::npos || target.find(':') != colon) return false;
    host = target.substr(0, colon);
    port = target.substr(colon + 1);
  }
  return !host.empty() && !port.empty();
}

// A TCP connection to host:port within `timeout`; -1 where none.
int ConnectWithin(const std::string& host, const std::string& port, std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    pollfd p{fd, POLLOUT, 0};
    int error = 0;
    socklen_t len = sizeof(error);
    const bool connected = (connect(fd, a->ai_addr, a->ai_addrlen) == 0 ||
                            (errno == EINPROGRESS && poll(&p, 1, static_cast<int>(timeout.count())) == 1 &&
                             getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) == 0 && error == 0));
    if (!connected) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return -1;
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  timeval tv{static_cast<time_t>(timeout.count() / 1000), static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  return fd;
}

// Why `leaf` (with the rest of `chain`) does not verify against the CA
// file of `security` (or the system's roots) at `now_unix_s`; OK if it does.
absl::Status Verify(X509* leaf, STACK_OF(X509) * chain, const ChannelSecurity& security, const std::string& target,
                    int64_t now_unix_s) {
  Store store(X509_STORE_new());
  const bool loaded = security.ca_file.empty()
                          ? X509_STORE_set_default_paths(store.get()) == 1
                          : X509_STORE_load_locations(store.get(), security.ca_file.c_str(), nullptr) == 1;
  if (!loaded) return absl::InvalidArgumentError(absl::StrCat("CA file '", security.ca_file, "' cannot be read"));
  StoreCtx ctx(X509_STORE_CTX_new());
  X509_STORE_CTX_init(ctx.get(), store.get(), leaf, chain);
  X509_STORE_CTX_set_time(ctx.get(), 0, static_cast<time_t>(now_unix_s));
  if (X509_verify_cert(ctx.get()) == 1) return absl::OkStatus();
  const int error = X509_STORE_CTX_get_error(ctx.get());
  // The dates of the certificate that failed (an expired intermediate is
  // named as such); the leaf's name, which the user knows.
  X509* failing = X509_STORE_CTX_get_current_cert(ctx.get());
  const CertificateDates dates = DatesOf(failing != nullptr ? failing : leaf);
  const std::string whose =
      absl::StrCat("synergyd's certificate at ", target, " (", NameLine(X509_get_subject_name(leaf)), ")");
  switch (error) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return absl::FailedPreconditionError(absl::StrCat(whose, " expired on ", FormatUtc(dates.not_after_unix_s)));
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return absl::FailedPreconditionError(absl::StrCat(
          whose, " is not valid until ", FormatUtc(dates.not_before_unix_s), " (is this machine's clock right?)"));
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE: {
      const std::string issuer = NameLine(X509_get_issuer_name(leaf));
      if (security.ca_file.empty()) {
        return absl::FailedPreconditionError(
            absl::StrCat("no CA given: ", whose, " is signed by '", issuer,
                         "', which the system's CAs do not trust; give synergyd's CA with --ca FILE (or SYNERGY_CA)"));
      }
      return absl::FailedPreconditionError(
          absl::StrCat(whose, " is not signed by the CA in ", security.ca_file, " (its issuer is '", issuer, "')"));
    }
    default:
      return absl::FailedPreconditionError(
          absl::StrCat(whose, " does not verify: ", X509_verify_cert_error_string(error)));
  }
}

}  // namespace

std::string FormatUtc(int64_t unix_s) {
  const time_t t = static_cast<time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

absl::StatusOr<CertificateDates> ReadCertificateDates(const std::string& pem, const std::string& what) {
  Bio in = MemoryBio(pem);
  Cert cert(PEM_read_bio_X509(in.get(), nullptr, nullptr, nullptr));
  if (!cert) return absl::InvalidArgumentError(absl::StrCat(what, ": not a PEM certificate (", OpenSslError(), ")"));
  return DatesOf(cert.get());
}

absl::StatusOr<CertificateDates> CheckServingCertificate(const std::string& cert_pem, const std::string& key_pem,
                                                         const std::string& cert_what, const std::string& key_what,
                                                         int64_t now_unix_s) {
  Bio cert_in = MemoryBio(cert_pem);
  Cert cert(PEM_read_bio_X509(cert_in.get(), nullptr, nullptr, nullptr));
  if (!cert)
    return absl::InvalidArgumentError(absl::StrCat(cert_what, ": not a PEM certificate (", OpenSslError(), ")"));
  Bio key_in = MemoryBio(key_pem);
  Key key(PEM_read_bio_PrivateKey(key_in.get(), nullptr, nullptr, nullptr));
  if (!key) return absl::InvalidArgumentError(absl::StrCat(key_what, ": not a PEM private key (", OpenSslError(), ")"));
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat(key_what, " is not the key of ", cert_what, ": the two files do not belong together"));
  }
  const CertificateDates dates = DatesOf(cert.get());
  if (now_unix_s > dates.not_after_unix_s) {
    return absl::FailedPreconditionError(
        absl::StrCat(cert_what, " (", dates.subject, ") expired on ", FormatUtc(dates.not_after_unix_s), ": renew it"));
  }
  if (now_unix_s < dates.not_before_unix_s) {
    return absl::FailedPreconditionError(absl::StrCat(cert_what, " (", dates.subject, ") is not valid until ",
                                                      FormatUtc(dates.not_before_unix_s),
                                                      " (is this machine's clock right?)"));
  }
  return dates;
}

absl::Status ExplainTlsFailure(const std::string& target, const ChannelSecurity& security, int64_t now_unix_s,
                               std::chrono::milliseconds timeout) {
  std::string host, port;
  if (security.plaintext || !SplitHostPort(target, host, port)) return absl::OkStatus();
  const int fd = ConnectWithin(host, port, timeout);
  if (fd < 0) return absl::UnavailableError(absl::StrCat("nothing answers at ", target));
  SslCtx ctx(SSL_CTX_new(TLS_client_method()));
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);  // verified below, to say why not
  static const unsigned char kAlpn[] = {2, 'h', '2'};
  SSL_CTX_set_alpn_protos(ctx.get(), kAlpn, sizeof(kAlpn));
  Ssl ssl(SSL_new(ctx.get()));
  SSL_set_fd(ssl.get(), fd);
  const std::string expected = security.server_name.empty() ? host : security.server_name;
  in6_addr ip{};
  const bool is_ip = inet_pton(AF_INET, expected.c_str(), &ip) == 1 || inet_pton(AF_INET6, expected.c_str(), &ip) == 1;
  if (!is_ip) SSL_set_tlsext_host_name(ssl.get(), expected.c_str());
  if (SSL_connect(ssl.get()) != 1) {
    const std::string why = OpenSslError();
    close(fd);
    if (absl::StrContains(why, "wrong version number") || absl::StrContains(why, "packet length too long")) {
      return absl::FailedPreconditionError(
          absl::StrCat(target, " does not speak TLS (a synergyd with tls: {plaintext: true}? then --plaintext)"));
    }
    return absl::FailedPreconditionError(absl::StrCat("TLS handshake with ", target, " failed: ", why));
  }
  Cert leaf(SSL_get1_peer_certificate(ssl.get()));
  absl::Status verdict = !leaf ? absl::FailedPreconditionError(absl::StrCat(target, " presented no certificate"))
                               : Verify(leaf.get(), SSL_get_peer_cert_chain(ssl.get()), security, target, now_unix_s);
  if (verdict.ok() && leaf) {
    const bool matches = is_ip ? X509_check_ip_asc(leaf.get(), expected.c_str(), 0) == 1
                               : X509_check_host(leaf.get(), expected.c_str(), expected.size(), 0, nullptr) == 1;
    if (!matches) {
      verdict = absl::FailedPreconditionError(
          absl::StrCat("name mismatch: expected ", expected, ", the certificate at ", target, " has ",
                       NamesOf(leaf.get()), " (connect by one of those, or --server-name NAME)"));
    }
  }
  SSL_shutdown(ssl.get());
  close(fd);
  return verdict;
}

bool LooksLikeTlsFailure(const std::string& grpc_message) {
  const std::string m = absl::AsciiStrToLower(grpc_message);
  return absl::StrContains(m, "ssl") || absl::StrContains(m, "handshake") || absl::StrContains(m, "certificate") ||
         absl::StrContains(m, "tls");
}

}  // namespace synergy::service
