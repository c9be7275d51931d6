#pragma once
// Which principal may make which call: one rule for every RPC of the three
// services, by method name. A method without a rule is refused (and the
// auth-matrix test, which walks the proto's service descriptors, fails), so
// a new RPC cannot ship open by omission.
#include <optional>
#include <string>

#include "daemon/api/authenticator.h"

namespace synergy::daemon {

enum class Access {
  kUserOrAdmin,  // users and admins; a job's command and env only to its owner and admins
  kAdmin,        // admins
  kNode,         // a node, for its own name (checked by the service)
  kLeaseAgent,   // the agent of the lease the request names (job id + epoch)
};

// The rule of "/synergy.v1.Service/Method", or nullopt when it has none.
std::optional<Access> AccessRule(const std::string& full_method);

// Whether `role` passes `access` (the per-request checks come after).
bool Permits(Access access, Role role);

}  // namespace synergy::daemon
