#include "daemon/api/authenticator.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "service/credentials.h"

namespace synergy::daemon {

std::string RoleName(Role role) {
  switch (role) {
    case Role::kUser: return "user";
    case Role::kAdmin: return "admin";
    case Role::kNode: return "node";
    case Role::kNodeJoin: return "node join credential";
    case Role::kAnyone: return "anyone (auth off)";
  }
  return "unknown";
}

Authenticator::Authenticator(AuthConfig config, std::string key) : config_(std::move(config)), key_(std::move(key)) {}

absl::StatusOr<Principal> Authenticator::Identify(std::string_view bearer, const std::string& node_name,
                                                  bool node_joined) const {
  if (!config_.required) return Principal{Role::kAnyone, "anonymous", ""};
  if (bearer.empty()) {
    return absl::UnauthenticatedError(
        "no credential: this call needs 'authorization: Bearer <credential>' (synergyctl --token or "
        "SYNERGY_TOKEN)");
  }
  const std::string digest = service::Sha256Hex(bearer);
  std::optional<Principal> found;
  // Every entry is compared, whatever matched before.
  auto scan = [&](const std::vector<CredentialEntry>& list, Role role) {
    for (const CredentialEntry& e : list) {
      if (service::ConstantTimeEquals(digest, e.sha256) && !found) found = Principal{role, e.name, e.tenant};
    }
  };
  scan(config_.users, Role::kUser);
  scan(config_.admins, Role::kAdmin);
  scan(config_.nodes, Role::kNode);
  scan(config_.node_join, Role::kNodeJoin);
  if (!node_name.empty() && node_joined && service::ConstantTimeEquals(NodeCredential(node_name), bearer) &&
      !found) {
    found = Principal{Role::kNode, node_name, ""};
  }
  if (!found) return absl::UnauthenticatedError("credential not accepted");
  return *found;
}

std::string Authenticator::LeaseCredential(const std::string& job_id, int64_t epoch) const {
  return service::HmacSha256Hex(key_, absl::StrCat("lease\n", job_id, "\n", epoch));
}

bool Authenticator::IsLeaseCredential(std::string_view bearer, const std::string& job_id, int64_t epoch) const {
  return service::ConstantTimeEquals(LeaseCredential(job_id, epoch), bearer);
}

std::string Authenticator::NodeCredential(const std::string& node_name) const {
  return service::HmacSha256Hex(key_, absl::StrCat("node\n", node_name));
}

bool Authenticator::IsConfiguredNode(const std::string& node_name) const {
  for (const CredentialEntry& e : config_.nodes) {
    if (e.name == node_name) return true;
  }
  return false;
}

}  // namespace synergy::daemon
