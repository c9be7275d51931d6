#include "node/job_account.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "synergy/quote.h"

namespace synergy::node {

bool IsAccountLikeName(absl::string_view name, bool local_account) {
  if (name.empty() || name.size() > 64 || (local_account && name[0] == '-')) return false;
  for (unsigned char ch : name) {
    if (!absl::ascii_isalnum(ch) && ch != '.' && ch != '_' && ch != '-' && ch != '@') return false;
  }
  return true;
}

// The map's entries have no lines of their own, so errors give the map's.
absl::Status ReadAccounts(const YamlMap& m, std::map<std::string, std::string>& out) {
  if (!m.Has("accounts")) return absl::OkStatus();
  const YamlValue accounts = m.Get("accounts");
  absl::StatusOr<std::map<std::string, std::string>> map = accounts.StringMap(kMaxAccounts, kMaxAccounts * 128);
  if (!map.ok()) return map.status();
  const auto refuse = [&](absl::string_view field, absl::string_view value, absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(accounts.source(), ":", accounts.line(), ": ", field, ": ", QuoteValue(value), ": ", why));
  };
  for (const auto& [user, account] : *map) {
    if (!IsAccountLikeName(user, false)) {
      return refuse(accounts.field(), user, "is not a user name (1-64 characters of A-Z a-z 0-9 . _ @ -)");
    }
    if (!IsAccountLikeName(account, true)) {
      return refuse(absl::StrCat(accounts.field(), ".", user), account,
                    "is not a local account name (1-64 characters of A-Z a-z 0-9 . _ @ -, not starting with -)");
    }
  }
  out = *std::move(map);
  return absl::OkStatus();
}


uid_t FirstUserUid() {
  static const uid_t first = [] {
    std::ifstream defs("/etc/login.defs");
    std::string line;
    while (std::getline(defs, line)) {
      std::istringstream words(line);
      std::string key;
      long value = 0;
      if (words >> key >> value && key == "UID_MIN" && value > 0 && value < 65536) return static_cast<uid_t>(value);
    }
    return static_cast<uid_t>(1000);  // login.defs' default
  }();
  return first;
}

absl::StatusOr<std::optional<JobAccount>> AccountForJob(const std::string& user, const AccountRule& config) {
  const bool node_is_root = ::geteuid() == 0;
  if (config.run_jobs_as_node_user) {
    if (node_is_root && !config.allow_root_jobs) {
      return absl::PermissionDeniedError(
          "run_jobs_as_node_user: the node runs as root, so jobs would too; set allow_root_jobs: true to allow it");
    }
    return std::nullopt;
  }
  if (user.empty()) return absl::PermissionDeniedError("the job has no owner to run as");
  auto mapped = config.accounts.find(user);
  const std::string name = mapped != config.accounts.end() ? mapped->second : user;
  std::vector<char> buffer(16384);
  struct passwd pw{};
  struct passwd* found = nullptr;
  if (::getpwnam_r(name.c_str(), &pw, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return absl::NotFoundError(absl::StrCat("user '", user, "': no local account '", name,
                                            "' on this node (map it under accounts: in the node's config)"));
  }
  if (pw.pw_uid == 0 && !config.allow_root_jobs) {
    return absl::PermissionDeniedError(
        absl::StrCat("user '", user, "' maps to '", name, "', which is root: refused (allow_root_jobs is off)"));
  }
  // A principal named like a system account (synergy, daemon, www-data)
  // does not get that account by its name alone: only an explicit mapping
  // runs jobs as a system account.
  if (mapped == config.accounts.end() && pw.pw_uid != 0 && pw.pw_uid < FirstUserUid()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "user '", user, "': the local account of that name is a system account (uid ", pw.pw_uid,
        ", below UID_MIN ", FirstUserUid(), "): refused (map the user under accounts: to run its jobs)"));
  }
  if (!node_is_root && config.switched_by_caller) {
    if (pw.pw_uid != ::geteuid()) {
      return absl::PermissionDeniedError(absl::StrCat("user '", user, "': the node is not root and cannot run jobs as '",
                                                      name, "'"));
    }
    return std::nullopt;
  }
  JobAccount account;
  account.name = name;
  account.uid = pw.pw_uid;
  account.gid = pw.pw_gid;
  account.home = pw.pw_dir ? pw.pw_dir : "/";
  int count = 64;
  std::vector<gid_t> groups(count);
  if (::getgrouplist(name.c_str(), pw.pw_gid, groups.data(), &count) < 0) {
    groups.resize(count);
    if (::getgrouplist(name.c_str(), pw.pw_gid, groups.data(), &count) < 0) count = 0;
  }
  groups.resize(count);
  account.groups = std::move(groups);
  return account;
}

}  // namespace synergy::node
