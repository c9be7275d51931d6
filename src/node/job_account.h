#pragma once
// Which local account a job runs as: its owner (the user whose credential
// submitted it) mapped through `accounts`, else the account of the same
// name; never root unless allowed; never another account than the
// caller's own when the caller is not root. synergy-node applies it to the
// processes it starts, and synergyd's Slurm executor to the uid it submits
// a lease's Slurm job as (slurm/slurm_executor.h).
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "node/process_launcher.h"
#include "synergy/yaml_reader.h"

namespace synergy::node {

// The rule, as configured (synergy-node.yaml, or synergyd.yaml's slurm:).
struct AccountRule {
  // user -> local account; a user not listed runs as the account of the
  // same name. Both sides 1-64 characters of A-Z a-z 0-9 . _ @ - (an
  // account not starting with -), at most kMaxAccounts entries.
  std::map<std::string, std::string> accounts;
  bool allow_root_jobs = false;
  // Every job runs as the caller's own account (a single-user machine;
  // when the caller is root it also needs allow_root_jobs).
  bool run_jobs_as_node_user = false;
  // Who switches to the account: the caller (synergy-node, which must be
  // root to run a job as another account), or Slurm (synergyd's executor
  // submits with --uid as SlurmUser, root or not).
  bool switched_by_caller = true;
};
inline constexpr size_t kMaxAccounts = 4096;

// The account to switch to, or nullopt to run as the caller's own account
// (run_jobs_as_node_user, or the mapped account is the caller's). Errors
// (PermissionDenied, NotFound) say which user, which account and why; the
// launch is then refused. A user whose same-named account is a system
// account (uid below FirstUserUid) is refused unless `accounts` maps it.
absl::StatusOr<std::optional<JobAccount>> AccountForJob(const std::string& user, const AccountRule& rule);

// The first uid of a person's account: /etc/login.defs' UID_MIN, else 1000.
uid_t FirstUserUid();

// The `accounts:` key of `m`, if any, checked (errors name the file, line,
// field and value) into `out`.
absl::Status ReadAccounts(const YamlMap& m, std::map<std::string, std::string>& out);

// 1-64 characters of [A-Za-z0-9._@-]: synergyd's principal names (its
// auth: section) and, not starting with '-', local account names.
bool IsAccountLikeName(absl::string_view name, bool local_account);

}  // namespace synergy::node
