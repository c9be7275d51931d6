#include "daemon/server/config.h"

#include <cmath>

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "service/durations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/server/security_config.h"
#include "daemon/nodes/slurm_config.h"
#include "service/channel.h"
#include "service/log_settings.h"
#include "service/request_limits.h"
#include "synergy/default_configs.h"
#include "synergy/mechanism.h"
#include "synergy/typed_round.h"
#include "synergy/policy.h"
#include "synergy/quote.h"
#include "synergy/yaml_reader.h"

namespace synergy::daemon {
namespace {

constexpr char kEmbedded[] = "<embedded synergyd.yaml>";

// A day: longer rounds, grace periods or silences are typing mistakes, and
// keep every sum of them far from overflow.
constexpr double kMaxSeconds = 86400;

const std::vector<absl::string_view>& Settings() {
  static const std::vector<absl::string_view> kSettings = {
      "listen",         "metrics_listen",        "state_db",  "store",          "round_s",        "align_rounds",
      "launch_between_rounds", "launch_debounce_ms",
      "policy",         "mechanism",             "type_choice",         "models",         "lease_grace_s",
      "heartbeat_interval_ms", "heartbeat_timeout_s", "max_retries",   "max_active_jobs_per_user", "profile_wait_s",
      "retain_ended_jobs", "restart_gain",   "executor",              "slurm",
      "default_time_limit", "max_time_limit", "fair_share_half_life",
      "auth",           "tls",                   "log_level",
      "log_format"};
  return kSettings;
}

// `refusal` is why `root` is not a map of Settings(). When that is a
// `tokens:` key (one shared token, from before auth: existed), says so
// instead, without echoing the token.
absl::Status ExplainRefusal(const YamlValue& root, absl::Status refusal) {
  std::vector<absl::string_view> with_tokens = Settings();
  with_tokens.push_back("tokens");
  absl::StatusOr<YamlMap> m = root.Map(with_tokens);
  if (!m.ok() || !m->Has("tokens")) return refusal;
  return RefuseWithoutValue(m->Get("tokens"),
                            "one shared token is no longer accepted; give each user, admin and node its "
                            "own credential under auth: (docs/security.md)");
}

// "30d", "12h", "90m", "600s" -> seconds; "forever" -> -1; else nullopt.
std::optional<int64_t> RetentionSeconds(const std::string& text) {
  constexpr int64_t kMaxRetentionS = int64_t{10} * 365 * 86400;
  if (text == "forever") return -1;
  return service::ParseDurationSeconds(text, kMaxRetentionS);
}

absl::Status ReadRetention(const YamlMap& m, DaemonConfig& c) {
  if (!m.Has("retain_ended_jobs")) return absl::OkStatus();
  std::string text;
  if (auto st = m.Read("retain_ended_jobs", text, 32); !st.ok()) return st;
  const std::optional<int64_t> seconds = RetentionSeconds(text);
  if (!seconds) {
    return m.Get("retain_ended_jobs")
        .Error("is not a duration from 1s to 10 years (e.g. 30d, 12h, 90m, 600s) or forever");
  }
  c.retain_ended_jobs_s = *seconds;
  return absl::OkStatus();
}

// default_time_limit, max_time_limit: durations (a job's limit; none
// where absent); a default above the maximum is refused. And
// fair_share_half_life, also a duration.
absl::Status ReadTimeLimits(const YamlMap& m, DaemonConfig& c) {
  for (auto [key, out] : {std::pair<const char*, int64_t*>{"default_time_limit", &c.default_time_limit_s},
                          {"max_time_limit", &c.max_time_limit_s},
                          {"fair_share_half_life", &c.fair_share_half_life_s}}) {
    if (!m.Has(key)) continue;
    std::string text;
    if (auto st = m.Read(key, text, 32); !st.ok()) return st;
    const std::optional<int64_t> seconds = service::ParseDurationSeconds(text, service::kMaxTimeLimitS);
    if (!seconds) return m.Get(key).Error("is not a duration from 1s to 365d (e.g. 90m, 12h, 7d)");
    *out = *seconds;
  }
  if (c.max_time_limit_s > 0 && c.default_time_limit_s > c.max_time_limit_s) {
    return m.Get("default_time_limit").Error("is more than max_time_limit");
  }
  return absl::OkStatus();
}

// store: {kind: sqlite, path: FILE} or {kind: postgres, dsn: "..."}.
absl::Status ReadStore(const YamlMap& root, DaemonConfig& c) {
  if (!root.Has("store")) return absl::OkStatus();
  const YamlValue section = root.Get("store");
  absl::StatusOr<YamlMap> m = section.Map({"kind", "path", "dsn", "instance", "failover_s"});
  if (!m.ok()) return m.status();
  absl::Status st = m->Read("kind", c.store_kind, 64);
  if (!st.ok()) return st;
  if (c.store_kind == "sqlite") {
    for (const char* key : {"dsn", "instance", "failover_s"}) {
      if (m->Has(key)) return m->Get(key).Error("is for kind: postgres; a SQLite store has a path");
    }
    if (root.Has("state_db") && m->Has("path")) {
      return m->Get("path").Error("and state_db both name the SQLite file: give one");
    }
    st = m->Read("path", c.state_db, service::kMaxPathBytes);
    if (st.ok() && m->Has("path") && c.state_db.empty()) return m->Get("path").Error("is empty");
    return st;
  }
  if (c.store_kind == "postgres") {
    if (m->Has("path")) return m->Get("path").Error("is for kind: sqlite; a PostgreSQL store has a dsn");
    if (root.Has("state_db")) return root.Get("state_db").Error("is the SQLite store's file; the store is postgres");
    if (!m->Has("dsn")) return RefuseWithoutValue(section, "kind: postgres needs dsn: (\"host=... dbname=... user=...\")");
    st = m->Read("dsn", c.store_dsn, 4096);
    if (st.ok() && c.store_dsn.empty()) return m->Get("dsn").Error("is empty");
    st.Update(m->Read("instance", c.store_instance, 255));
    st.Update(m->Read("failover_s", c.store_failover_s, DoubleRange{1, 300}));
    return st;
  }
  return m->Get("kind").Error("is not one of sqlite, postgres");
}

absl::Status ReadSettings(const YamlMap& m, DaemonConfig& c) {
  absl::Status st;
  st.Update(m.Read("listen", c.listen, service::kMaxNodeAddressBytes));
  st.Update(m.Read("metrics_listen", c.metrics_listen, service::kMaxNodeAddressBytes));
  st.Update(m.Read("state_db", c.state_db, service::kMaxPathBytes));
  st.Update(ReadStore(m, c));
  // At least 50 ms: a shorter round would only spin (each one reads and
  // stores the whole queue).
  st.Update(m.Read("round_s", c.round_s, DoubleRange{0.05, kMaxSeconds}));
  st.Update(m.Read("align_rounds", c.align_rounds));
  st.Update(m.Read("launch_between_rounds", c.launch_between_rounds));
  st.Update(m.Read("launch_debounce_ms", c.launch_debounce_ms, IntRange{0, 60'000}));
  st.Update(m.Read("policy", c.policy, 64));
  st.Update(m.Read("mechanism", c.mechanism, 64));
  st.Update(m.Read("type_choice", c.type_choice, 64));
  st.Update(m.Read("models", c.models, service::kMaxPathBytes));
  st.Update(m.Read("lease_grace_s", c.lease_grace_s, DoubleRange::NonNegative(kMaxSeconds)));
  // 1 ms to a minute: what nodes are told; a node silent for
  // heartbeat_timeout_s is lost whatever the interval.
  st.Update(m.Read("heartbeat_interval_ms", c.heartbeat_interval_ms, IntRange{1, 60'000}));
  st.Update(m.Read("heartbeat_timeout_s", c.heartbeat_timeout_s, DoubleRange::Positive(kMaxSeconds)));
  st.Update(m.Read("max_retries", c.max_retries, IntRange{0, service::kMaxRetries}));
  st.Update(m.Read("max_active_jobs_per_user", c.max_active_jobs_per_user, IntRange{1, 1000000}));
  // Up to about four months: beyond that "never profile" is profile: false.
  st.Update(m.Read("profile_wait_s", c.profile_wait_s, DoubleRange::NonNegative(1e7)));
  st.Update(m.Read("restart_gain", c.restart_gain, DoubleRange::NonNegative(10)));
  st.Update(ReadRetention(m, c));
  st.Update(ReadTimeLimits(m, c));
  st.Update(m.Read("executor", c.executor, 64));
  if (m.Has("slurm")) st.Update(ParseSlurmSection(m.Get("slurm"), c.slurm));
  if (m.Has("auth")) st.Update(ParseAuthSection(m.Get("auth"), c.auth));
  if (m.Has("tls")) st.Update(ParseTlsSection(m.Get("tls"), c.tls));
  st.Update(m.Read("log_level", c.log_level, 64));
  st.Update(m.Read("log_format", c.log_format, 64));
  return st;
}

// What a read cannot say: names from a registry, values that must not be
// empty.
absl::Status CheckSettings(const YamlMap& m, const DaemonConfig& c) {
  if (m.Has("listen") && c.listen.empty()) return m.Get("listen").Error("is empty");
  if (m.Has("state_db") && c.state_db.empty()) return m.Get("state_db").Error("is empty");
  if (m.Has("policy") && !MakePolicy(c.policy).ok()) {
    return m.Get("policy").Error(absl::StrCat("is not one of ", absl::StrJoin(PolicyNames(), ", ")));
  }
  if (m.Has("mechanism") && !MakeMechanism(c.mechanism).ok()) {
    return m.Get("mechanism").Error(absl::StrCat("is not one of ", absl::StrJoin(MechanismNames(), ", ")));
  }
  if (m.Has("type_choice") && !TypeChoiceNamed(c.type_choice)) {
    return m.Get("type_choice").Error(absl::StrCat("is not one of ", absl::StrJoin(TypeChoiceNames(), ", ")));
  }
  if (m.Has("executor") && c.executor != "node" && c.executor != "slurm") {
    return m.Get("executor").Error("is not node or slurm");
  }
  if (c.executor == "slurm" && c.slurm.partition.empty() && (m.Has("slurm") || m.Has("executor"))) {
    return (m.Has("slurm") ? m.Get("slurm") : m.Get("executor")).Error("needs slurm.partition (the partition synergyd owns)");
  }
  return service::CheckLogSettings(m, c.log_level, c.log_format);
}

}  // namespace

absl::StatusOr<DaemonConfig> ParseDaemonConfig(const std::string& text, const std::string& source,
                                               DaemonConfig base) {
  absl::StatusOr<YamlValue> root = ParseYaml(text, source);
  if (!root.ok()) return root.status();
  if (root->IsNull()) return base;  // an empty file changes nothing
  // (No YamlValue or YamlMap is copied or moved here: the copy of the
  // YAML::Node inside is defined inline in yaml-cpp's impl.h, which only
  // yaml_reader.cc includes, and a clang build leaves it undefined.)
  absl::StatusOr<YamlMap> m = root->Map(Settings());
  if (!m.ok()) return ExplainRefusal(*root, m.status());
  if (absl::Status st = ReadSettings(*m, base); !st.ok()) return st;
  if (absl::Status st = CheckSettings(*m, base); !st.ok()) return st;
  return base;
}

namespace {

// With tenants configured, a user of none could submit outside every
// quota, and one of an unknown tenant to a tenant with none.
absl::Status CheckUsersTenants(const AuthConfig& auth, const std::string& source) {
  if (auth.tenants.empty()) return absl::OkStatus();
  std::set<std::string> tenants;
  for (const TenantConfig& t : auth.tenants) tenants.insert(t.name);
  for (const CredentialEntry& u : auth.users) {
    if (tenants.count(u.tenant)) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": auth.users: '", u.name, "' has tenant ", QuoteValue(u.tenant),
        u.tenant.empty() ? ": with auth.tenants set, every user belongs to one of them" : ", not one of auth.tenants"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateSecurity(const DaemonConfig& c, const std::string& source) {
  const bool loopback = service::IsLoopbackTarget(c.listen);
  if (c.tls.plaintext && !loopback) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": tls.plaintext: true is allowed only on a loopback listen address, not ", QuoteValue(c.listen),
        ": credentials would cross the network in clear text"));
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
                                                           "listen address, not ", QuoteValue(c.listen)));
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
  if (absl::Status st = CheckUsersTenants(c.auth, source); !st.ok()) return st;
  std::set<std::string> node_names;
  for (const CredentialEntry& e : c.auth.nodes) {
    if (!node_names.insert(e.name).second) {
      return absl::InvalidArgumentError(absl::StrCat(source, ": auth.nodes: '", e.name, "' is listed twice"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<DaemonConfig> LoadDaemonConfig(const std::string& file) {
  absl::StatusOr<DaemonConfig> config = ParseDaemonConfig(kDefaultDaemonYaml, kEmbedded, DaemonConfig{});
  if (!config.ok()) return config;
  if (!file.empty()) {
    absl::StatusOr<std::string> text = ReadTextFile(file);
    if (!text.ok()) return text.status();
    config = ParseDaemonConfig(*text, file, *std::move(config));
    if (!config.ok()) return config;
  }
  if (absl::Status st = ValidateSecurity(*config, file.empty() ? kEmbedded : file); !st.ok()) return st;
  return config;
}

int64_t MillisecondsOf(double seconds) { return std::llround(seconds * 1000); }
int64_t DaemonConfig::round_ms() const { return MillisecondsOf(round_s); }
int64_t DaemonConfig::lease_grace_ms() const { return MillisecondsOf(lease_grace_s); }
int64_t DaemonConfig::heartbeat_timeout_ms() const { return MillisecondsOf(heartbeat_timeout_s); }
int64_t DaemonConfig::profile_wait_ms() const { return MillisecondsOf(profile_wait_s); }

}  // namespace synergy::daemon
