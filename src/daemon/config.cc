#include "daemon/config.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

absl::StatusOr<DaemonConfig> ParseDaemonConfig(const std::string& text, const std::string& source,
                                               DaemonConfig c) {
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
      "heartbeat_interval_ms", "heartbeat_timeout_s", "max_retries", "profile_wait_s", "tokens", "log_level"};
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    absl::Status st;
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
    if (key == "tokens") st = Get(source, v, key, c.tokens);
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

absl::StatusOr<DaemonConfig> LoadDaemonConfig(const std::string& file) {
  auto base = ParseDaemonConfig(kDefaultDaemonYaml, "<embedded synergyd.yaml>", DaemonConfig{});
  if (!base.ok() || file.empty()) return base;
  std::ifstream in(file);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(file, ": cannot open"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseDaemonConfig(ss.str(), file, *base);
}

}  // namespace synergy::daemon
