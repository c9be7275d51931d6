#include "service/channel.h"

#include <arpa/inet.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"

namespace synergy::service {
namespace {

// The host part of one address: "host:port", "[v6]:port", "v4".
std::string HostOf(std::string address) {
  if (!address.empty() && address[0] == '[') {
    const size_t end = address.find(']');
    return end == std::string::npos ? address : address.substr(1, end - 1);
  }
  const size_t colon = address.rfind(':');
  if (colon != std::string::npos && address.find(':') == colon) return address.substr(0, colon);
  return address;  // a bare v6 address, or no port
}

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

}  // namespace

absl::StatusOr<std::string> ReadPemFile(const std::string& path, const std::string& field) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(field, ": cannot read '", path, "'"));
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().find("-----BEGIN") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": '", path, "' is not a PEM file"));
  }
  return ss.str();
}

bool IsLoopbackTarget(const std::string& target) {
  if (absl::StartsWith(target, "unix:") || absl::StartsWith(target, "unix-abstract:")) return true;
  std::string rest = target;
  if (absl::StartsWith(rest, "dns:///")) rest = rest.substr(7);
  // ipv4:/ipv6: targets may list several addresses: every one must be
  // loopback, or the credential could go to the others in clear text.
  if (absl::StartsWith(rest, "ipv4:") || absl::StartsWith(rest, "ipv6:")) rest = rest.substr(5);
  if (rest.empty()) return false;
  for (absl::string_view address : absl::StrSplit(rest, ',')) {
    if (!IsLoopbackHost(HostOf(std::string(address)))) return false;
  }
  return true;
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenChannel(const std::string& target,
                                                           const ChannelSecurity& security,
                                                           bool sends_credential, grpc::ChannelArguments args) {
  if (security.plaintext) {
    if (sends_credential && !IsLoopbackTarget(target)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "plain text to '", target, "' would send a credential across the network in clear text; "
          "use TLS (a CA file) or a loopback address"));
    }
    return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  }
  grpc::SslCredentialsOptions ssl;
  if (!security.ca_file.empty()) {
    auto roots = ReadPemFile(security.ca_file, "CA file");
    if (!roots.ok()) return roots.status();
    ssl.pem_root_certs = *roots;
  }
  if (security.cert_file.empty() != security.key_file.empty()) {
    return absl::InvalidArgumentError("a client certificate needs both its certificate and its key file");
  }
  if (!security.cert_file.empty()) {
    auto cert = ReadPemFile(security.cert_file, "client certificate");
    if (!cert.ok()) return cert.status();
    auto key = ReadPemFile(security.key_file, "client key");
    if (!key.ok()) return key.status();
    ssl.pem_cert_chain = *cert;
    ssl.pem_private_key = *key;
  }
  if (!security.server_name.empty()) args.SetSslTargetNameOverride(security.server_name);
  return grpc::CreateCustomChannel(target, grpc::SslCredentials(ssl), args);
}

absl::StatusOr<std::vector<std::string>> SplitTargets(const std::string& targets, const std::string& field) {
  for (const char* scheme : {"dns:", "ipv4:", "ipv6:", "unix:", "unix-abstract:"}) {
    if (absl::StartsWith(targets, scheme)) return std::vector<std::string>{targets};
  }
  std::vector<std::string> out;
  for (absl::string_view entry : absl::StrSplit(targets, ',')) {
    const std::string address(absl::StripAsciiWhitespace(entry));
    if (address.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": '", targets,
                                                     "' has an empty address (HOST:PORT[,HOST:PORT...])"));
    }
    out.push_back(address);
  }
  return out;
}

absl::StatusOr<std::shared_ptr<LeaderChannels>> LeaderChannels::Open(const std::string& targets,
                                                                     const std::string& field,
                                                                     const ChannelSecurity& security,
                                                                     bool sends_credential,
                                                                     const grpc::ChannelArguments& args) {
  auto split = SplitTargets(targets, field);
  if (!split.ok()) return split.status();
  std::shared_ptr<LeaderChannels> c(new LeaderChannels());
  c->targets_ = std::move(*split);
  c->security_ = security;
  c->sends_credential_ = sends_credential;
  c->args_ = args;
  for (const std::string& target : c->targets_) {
    auto channel = OpenChannel(target, security, sends_credential, args);
    if (!channel.ok()) return channel.status();
    c->opened_.push_back(*channel);
  }
  return c;
}

std::shared_ptr<grpc::Channel> LeaderChannels::current() const {
  std::lock_guard lock(mu_);
  return opened_[at_];
}

std::string LeaderChannels::current_target() const {
  std::lock_guard lock(mu_);
  return targets_[at_];
}

std::shared_ptr<grpc::Channel> LeaderChannels::Next() {
  std::lock_guard lock(mu_);
  at_ = (at_ + 1) % targets_.size();
  // Open checked every address; a file gone since then keeps the address's
  // last channel (it still carries what was read).
  auto channel = OpenChannel(targets_[at_], security_, sends_credential_, args_);
  if (channel.ok()) opened_[at_] = *channel;
  return opened_[at_];
}

absl::Status ValidateCredentialText(const std::string& credential, const std::string& field) {
  if (credential.size() > 4096) return absl::InvalidArgumentError(absl::StrCat(field, ": longer than 4096 characters"));
  for (size_t i = 0; i < credential.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(credential[i]);
    if (c < 0x21 || c > 0x7e) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": character ", i + 1, " (byte 0x", absl::Hex(c, absl::kZeroPad2),
          ") is not printable ASCII (a newline or space from a file?)"));
    }
  }
  return absl::OkStatus();
}

void AttachCredential(grpc::ClientContext& context, const std::string& credential) {
  if (credential.empty() || !ValidateCredentialText(credential, "credential").ok()) return;
  context.AddMetadata("authorization", "Bearer " + credential);
}

}  // namespace synergy::service
