#pragma once
// Who is calling: a credential (the bearer of the call's "authorization"
// metadata) maps to one principal. Users, admins and nodes have configured
// credentials, kept as SHA-256 digests and compared in constant time over
// the whole list, so neither the result nor its timing says which entry
// was close. Agents and joined nodes hold credentials derived from the
// daemon's key with HMAC-SHA256 (lease: job id and epoch; node: its name),
// so nothing per lease needs storing and a restart keeps them valid.
// Pure: no gRPC, no store.
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "daemon/server/config.h"

namespace synergy::daemon {

enum class Role {
  kUser,       // submits; sees and changes its own jobs; reads cluster state
  kAdmin,      // everything a user may, on every job; drains nodes
  kNode,       // NodeService, for its own name only
  kNodeJoin,   // RegisterNode once, for a name not yet known
  kAnyone,     // auth.mode none (loopback only): every rule but the agent's passes
};

struct Principal {
  Role role = Role::kAnyone;
  std::string name;    // user, admin or node name
  std::string tenant;  // users
};

std::string RoleName(Role role);

class Authenticator {
 public:
  // `key`: the daemon's credential key (secret; from the state database).
  Authenticator(AuthConfig config, std::string key);

  // The principal `bearer` belongs to. `node_name`, for NodeService calls,
  // is the node the request speaks for; with `node_joined` (it registered
  // with a join credential before) its derived credential is accepted too.
  // UNAUTHENTICATED when there is no credential or it matches nobody.
  absl::StatusOr<Principal> Identify(std::string_view bearer, const std::string& node_name,
                                     bool node_joined) const;

  // The credential of the agent of `job_id`'s lease `epoch` (64 hex digits,
  // 256 bits): handed to the job's processes, never shown elsewhere.
  std::string LeaseCredential(const std::string& job_id, int64_t epoch) const;
  bool IsLeaseCredential(std::string_view bearer, const std::string& job_id, int64_t epoch) const;

  // The credential a node that joined with a join credential uses after.
  std::string NodeCredential(const std::string& node_name) const;

  // A node configured by name in auth.nodes (it cannot join).
  bool IsConfiguredNode(const std::string& node_name) const;
  bool required() const { return config_.required; }

 private:
  AuthConfig config_;
  std::string key_;
};

}  // namespace synergy::daemon
