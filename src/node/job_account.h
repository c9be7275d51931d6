#pragma once
// Which local account a job runs as on this node: its owner (the user whose
// credential submitted it) mapped through the node's `accounts`, else the
// account of the same name; never root unless the node allows it; never
// another account than the node's own when the node is not root.
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "node/node_config.h"
#include "node/process_launcher.h"

namespace synergy::node {

// The account to switch to, or nullopt to run as the node's own account
// (run_jobs_as_node_user, or the mapped account is the node's). Errors
// (PermissionDenied, NotFound) say which user, which account and why; the
// launch is then refused.
absl::StatusOr<std::optional<JobAccount>> AccountForJob(const std::string& user, const NodeConfig& config);

}  // namespace synergy::node
