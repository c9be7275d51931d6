#include "daemon/config.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/security_config.h"
#include "service/channel.h"
#include "synergy/default_configs.h"
#include "synergy/mechanism.h"
#include "synergy/policy.h"
#include "yaml-cpp/yaml.h"

namespace synergy::daemon {
namespace {

absl::Status FieldError(const std::string& source, const YAML::Node& node, const std::string& field,
                        const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(source, ":", node.Mark().line + 1, ": ", field,
                                                 ": '", node.IsScalar() ? node.Scalar() : "...",
                                                 "' ", why));
}

template <typename T>
absl::Status Get(const std::string& source, const YAML::Node& node, const std::string& field,
                 T& out) {
  try {
    out = node.as<T>();
  } catch (const YAML::Exception&) {
    return FieldError(source, node, field, "is not valid");
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

absl::StatusOr<DaemonConfig> ParseSettings(const std::string& text, const std::string& source, DaemonConfig c) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ":", e.mark.line + 1, ": not valid YAML: ", e.msg));
  }
  if (root.IsNull()) return c;
  if (!root.IsMap()) return absl::InvalidArgumentError(absl::StrCat(source, ": not a map of settings"));
  static const std::set<std::string> known = {
      "listen",        "metrics_listen",        "state_db",           "round_s",
      "policy",        "mechanism",             "models",             "lease_grace_s",
      "heartbeat_interval_ms", "heartbeat_timeout_s", "max_retries", "profile_wait_s", "auth", "tls",
      "log_level"};
  for (const auto& kv : root) {
    if (!kv.first.IsScalar()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ":", kv.first.Mark().line + 1, ": a setting's name must be a plain word"));
    }
    const std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    absl::Status st;
    if (key == "tokens") {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ":", kv.first.Mark().line + 1,
          ": tokens: one shared token is no longer accepted; give each user, admin and node its own "
          "credential under auth: (docs/security.md)"));
    }
    if (!known.count(key)) {
      return absl::InvalidArgumentError(absl::StrCat(source, ":", kv.first.Mark().line + 1,
                                                     ": unknown setting '", key, "' (settings: ",
                                                     absl::StrJoin(known, ", "), ")"));
    }
    if (key == "listen") st = Get(source, v, key, c.listen);
    if (key == "metrics_listen") st = Get(source, v, key, c.metrics_listen);
    if (key == "state_db") st = Get(source, v, key, c.state_db);
    if (key == "models") st = Get(source, v, key, c.models);
    if (key == "log_level") st = Get(source, v, key, c.log_level);
    if (key == "policy") st = Get(source, v, key, c.policy);
    if (key == "mechanism") st = Get(source, v, key, c.mechanism);
    if (key == "round_s") st = Get(source, v, key, c.round_s);
    if (key == "lease_grace_s") st = Get(source, v, key, c.lease_grace_s);
    if (key == "heartbeat_timeout_s") st = Get(source, v, key, c.heartbeat_timeout_s);
    if (key == "heartbeat_interval_ms") st = Get(source, v, key, c.heartbeat_interval_ms);
    if (key == "max_retries") st = Get(source, v, key, c.max_retries);
    if (key == "profile_wait_s") st = Get(source, v, key, c.profile_wait_s);
    if (key == "auth") st = ParseAuthSection(v, source, c.auth);
    if (key == "tls") st = ParseTlsSection(v, source, c.tls);
    if (!st.ok()) return st;
    if (key == "round_s" && !(c.round_s > 0)) return FieldError(source, v, key, "is not > 0");
    if (key == "lease_grace_s" && !(c.lease_grace_s >= 0)) return FieldError(source, v, key, "is negative");
    if (key == "heartbeat_timeout_s" && !(c.heartbeat_timeout_s > 0)) {
      return FieldError(source, v, key, "is not > 0");
    }
    if (key == "heartbeat_interval_ms" && c.heartbeat_interval_ms <= 0) {
      return FieldError(source, v, key, "is not > 0");
    }
    if (key == "max_retries" && c.max_retries < 0) return FieldError(source, v, key, "is negative");
    if (key == "profile_wait_s" && !(c.profile_wait_s >= 0)) return FieldError(source, v, key, "is negative");
    for (const auto& [name, value] : {std::pair<const char*, double>{"round_s", c.round_s},
                                      {"lease_grace_s", c.lease_grace_s},
                                      {"heartbeat_timeout_s", c.heartbeat_timeout_s},
                                      {"profile_wait_s", c.profile_wait_s}}) {
      if (key == name && !std::isfinite(value)) return FieldError(source, v, key, "is not a finite number");
    }
    if (key == "state_db" && c.state_db.empty()) return FieldError(source, v, key, "is empty");
    if (key == "listen" && c.listen.empty()) return FieldError(source, v, key, "is empty");
    if (key == "policy" && !MakePolicy(c.policy).ok()) {
      return FieldError(source, v, key, absl::StrCat("is not one of ", absl::StrJoin(PolicyNames(), ", ")));
    }
    if (key == "mechanism" && !MakeMechanism(c.mechanism).ok()) {
      return FieldError(source, v, key,
                        absl::StrCat("is not one of ", absl::StrJoin(MechanismNames(), ", ")));
    }
    if (key == "log_level") {
      static const std::set<std::string> levels = {"trace", "debug", "info", "warn", "error"};
      if (!levels.count(c.log_level)) return FieldError(source, v, key, "is not trace|debug|info|warn|error");
    }
  }
  return c;
}

}  // namespace

absl::StatusOr<DaemonConfig> ParseDaemonConfig(const std::string& text, const std::string& source,
                                               DaemonConfig base) {
  // yaml-cpp throws from more places than its parser (a node's Mark, an
  // alias of a different type); none of it may end the daemon.
  try {
    return ParseSettings(text, source, std::move(base));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(source, ":", e.mark.line + 1, ": not valid: ", e.msg));
  }
}

absl::Status ValidateSecurity(const DaemonConfig& c, const std::string& source) {
  const bool loopback = service::IsLoopbackTarget(c.listen);
  if (c.tls.plaintext && !loopback) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": tls.plaintext: true is allowed only on a loopback listen address, not '", c.listen,
        "': credentials would cross the network in clear text"));
  }
  if (!c.tls.plaintext && (c.tls.cert.empty() || c.tls.key.empty())) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": tls.cert and tls.key: required (or tls.plaintext: true on a loopback address); "
                "see docs/security.md"));
  }
  if (c.tls.require_node_certificates && (c.tls.plaintext || c.tls.client_ca.empty())) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": tls.require_node_certificates: needs tls.client_ca and TLS"));
  }
  if (!c.auth.required && !loopback) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": auth.mode: none is allowed only on a loopback "
                                                           "listen address, not '", c.listen, "'"));
  }
  // One credential, one principal: otherwise who called would depend on
  // the order of the lists.
  std::set<std::string> digests;
  std::set<std::string> names;
  for (const auto* list : {&c.auth.users, &c.auth.admins, &c.auth.nodes, &c.auth.node_join}) {
    for (const CredentialEntry& e : *list) {
      if (!digests.insert(e.sha256).second) {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": auth: the same credential is given twice (", e.name.empty() ? "node_join" : e.name,
                         "); each principal needs its own"));
      }
    }
  }
  for (const auto* list : {&c.auth.users, &c.auth.admins}) {
    for (const CredentialEntry& e : *list) {
      if (!names.insert(e.name).second) {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": auth: '", e.name, "' is listed twice among users and admins"));
      }
    }
  }
  std::set<std::string> node_names;
  for (const CredentialEntry& e : c.auth.nodes) {
    if (!node_names.insert(e.name).second) {
      return absl::InvalidArgumentError(absl::StrCat(source, ": auth.nodes: '", e.name, "' is listed twice"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<DaemonConfig> LoadDaemonConfig(const std::string& file) {
  auto config = ParseDaemonConfig(kDefaultDaemonYaml, "<embedded synergyd.yaml>", DaemonConfig{});
  if (!config.ok()) return config;
  if (!file.empty()) {
    std::ifstream in(file);
    if (!in) return absl::InvalidArgumentError(absl::StrCat(file, ": cannot open"));
    std::stringstream ss;
    ss << in.rdbuf();
    config = ParseDaemonConfig(ss.str(), file, *config);
    if (!config.ok()) return config;
  }
  if (auto st = ValidateSecurity(*config, file.empty() ? "<embedded synergyd.yaml>" : file); !st.ok()) return st;
  return config;
}

}  // namespace synergy::daemon
