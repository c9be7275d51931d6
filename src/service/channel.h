#pragma once
// Client channels to synergyd, for synergyctl, synergy-node and the job
// agent: TLS verified against a CA file (or the system's roots), an
// optional client certificate (mutual TLS, nodes), or plain text when
// explicitly asked for. A credential is never sent in plain text to an
// address that is not loopback: OpenChannel refuses to build such a channel.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace synergy::service {

struct ChannelSecurity {
  bool plaintext = false;   // no TLS: only to loopback when a credential is sent
  std::string ca_file;      // PEM roots to verify synergyd by; "" = the system's
  std::string cert_file;    // PEM client certificate (mutual TLS); "" = none
  std::string key_file;     // its private key
  // The name synergyd's certificate must carry, when it differs from the
  // target's host (e.g. connecting to an IP address).
  std::string server_name;
};

// The contents of a PEM file (certificate, key, CA bundle);
// InvalidArgument "FIELD: cannot read 'PATH'" or "... is not a PEM file".
absl::StatusOr<std::string> ReadPemFile(const std::string& path, const std::string& field);

// True when `target` ("host:port", "[v6]:port", "unix:path") can only reach
// this machine: 127.0.0.0/8, ::1, "localhost", or a Unix socket.
bool IsLoopbackTarget(const std::string& target);

// A channel to `target`. InvalidArgument when a file cannot be read (naming
// it), FailedPrecondition for plain text to a non-loopback target when
// `sends_credential`.
absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenChannel(const std::string& target,
                                                           const ChannelSecurity& security,
                                                           bool sends_credential,
                                                           grpc::ChannelArguments args = {});

// The addresses in `targets`: "host:port,host:port" split at its commas,
// each trimmed. A target with a scheme (dns:, ipv4:, ipv6:, unix:,
// unix-abstract:) is one address however many commas it holds (gRPC's own
// lists). InvalidArgument naming `field` for an empty list or entry.
absl::StatusOr<std::vector<std::string>> SplitTargets(const std::string& targets, const std::string& field);

// Channels to one of several synergyd addresses, in turn. synergyd may run
// as a leader and standbys sharing one PostgreSQL (docs/deploy.md): a
// standby answers every call UNAVAILABLE naming the leader, and a leader
// that died answers nothing, so a client whose call finds synergyd
// unavailable moves on with Next and reaches the leader within one turn of
// the list. With one address, Next opens a new channel to it (gRPC 1.51's
// TLS channels can stay failed after synergyd restarts, grpc/grpc#33593).
// Thread-safe.
class LeaderChannels {
 public:
  // Errors: SplitTargets', then OpenChannel's for the first address that
  // fails (every address is checked here, so that Next cannot fail later).
  static absl::StatusOr<std::shared_ptr<LeaderChannels>> Open(const std::string& targets,
                                                              const std::string& field,
                                                              const ChannelSecurity& security, bool sends_credential,
                                                              const grpc::ChannelArguments& args = {});
  std::shared_ptr<grpc::Channel> current() const;
  std::string current_target() const;
  size_t size() const { return targets_.size(); }
  // After a call on current() found synergyd unavailable: a new channel to
  // the next address, which becomes current.
  std::shared_ptr<grpc::Channel> Next();

 private:
  LeaderChannels() = default;
  std::vector<std::string> targets_;
  // Per address, the last channel opened (Next falls back to it where a
  // file it read has gone since).
  std::vector<std::shared_ptr<grpc::Channel>> opened_;
  ChannelSecurity security_;
  bool sends_credential_ = false;
  grpc::ChannelArguments args_;
  mutable std::mutex mu_;
  size_t at_ = 0;  // under mu_; opened_[at_] is current
};

// A credential must be 1-4096 printable ASCII characters without spaces
// (gRPC metadata cannot carry others; a stray newline in a token file would
// otherwise abort the program). InvalidArgument naming `field` says which
// character is wrong, without echoing the credential.
absl::Status ValidateCredentialText(const std::string& credential, const std::string& field);

// Adds "authorization: Bearer <credential>" to an outgoing call (nothing
// when empty or not valid: the call then fails as unauthenticated).
void AttachCredential(grpc::ClientContext& context, const std::string& credential);

}  // namespace synergy::service
