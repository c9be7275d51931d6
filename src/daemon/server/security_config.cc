#include "daemon/server/security_config.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "service/credentials.h"
#include "service/request_limits.h"
#include "synergy/quote.h"

namespace synergy::daemon {
namespace {

constexpr char kNameRule[] = "1-64 characters of A-Z a-z 0-9 . _ @ -";

// A printable name of at most 64 characters from [A-Za-z0-9._@-].
bool IsPrincipalName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (unsigned char c : name) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '_' && c != '-' && c != '@') return false;
  }
  return true;
}

// One entry of a credential list: {name, tenant, token | token_sha256}.
absl::StatusOr<CredentialEntry> ParseCredential(const YamlValue& item, bool named, bool with_tenant) {
  // A bare scalar may well be the credential itself.
  if (item.IsScalar()) return RefuseWithoutValue(item, "is not a map of name and token_sha256");
  std::vector<absl::string_view> fields;
  if (named) fields.push_back("name");
  if (with_tenant) fields.push_back("tenant");
  fields.insert(fields.end(), {"token", "token_sha256"});
  absl::StatusOr<YamlMap> m = item.Map(fields);
  if (!m.ok()) return m.status();
  CredentialEntry entry;
  if (named) {
    const YamlValue name = m->Get("name");
    if (!name.Present()) return name.Error(absl::StrCat("missing (", kNameRule, ")"));
    absl::StatusOr<std::string> s = name.String();
    if (!s.ok()) return s.status();
    if (!IsPrincipalName(*s)) return name.Error(absl::StrCat("is not ", kNameRule));
    entry.name = *std::move(s);
  }
  if (absl::Status st = m->Read("tenant", entry.tenant, service::kMaxTenantBytes); !st.ok()) return st;
  if (!IsPrintableText(entry.tenant)) return m->Get("tenant").Error("is not printable text");
  std::string token, digest;
  for (auto [key, out] : {std::pair<const char*, std::string*>{"token", &token}, {"token_sha256", &digest}}) {
    if (!m->Has(key)) continue;
    absl::StatusOr<std::string> secret = service::ReadCredentialYaml(m->Get(key));
    if (!secret.ok()) return secret.status();
    *out = *std::move(secret);
  }
  // An empty one counts as not given.
  if (token.empty() == digest.empty()) {
    return RefuseWithoutValue(item, "needs exactly one of token or token_sha256");
  }
  if (!token.empty()) {
    // A short credential can be guessed; 16 characters is the least that
    // openssl rand -hex 8 gives, and tests use longer ones.
    if (token.size() < 16) return RefuseWithoutValue(m->Get("token"), "is shorter than 16 characters");
    entry.sha256 = service::Sha256Hex(token);
  } else {
    if (!service::IsSha256Hex(digest)) {
      return RefuseWithoutValue(m->Get("token_sha256"), "is not 64 hex digits (a SHA-256 digest)");
    }
    entry.sha256 = absl::AsciiStrToLower(digest);
  }
  return entry;
}

// One list of credential entries (auth.users, ...). Absent or null leaves
// `out` as it is; a list replaces it.
absl::Status ParseCredentials(const YamlValue& list, bool named, bool with_tenant,
                              std::vector<CredentialEntry>& out) {
  if (list.IsNull()) return absl::OkStatus();
  if (!list.IsSequence()) {
    return list.Error(named ? "is not a list of {name, token_sha256}" : "is not a list of {token_sha256}");
  }
  absl::StatusOr<std::vector<YamlValue>> items = list.List(0, kMaxCredentialEntries);
  if (!items.ok()) return items.status();
  std::vector<CredentialEntry> entries;
  for (const YamlValue& item : *items) {
    absl::StatusOr<CredentialEntry> entry = ParseCredential(item, named, with_tenant);
    if (!entry.ok()) return entry.status();
    entries.push_back(*std::move(entry));
  }
  out = std::move(entries);
  return absl::OkStatus();
}

}  // namespace

absl::Status RefuseWithoutValue(const YamlValue& value, absl::string_view why) {
  const std::string where =
      value.line() > 0 ? absl::StrCat(value.source(), ":", value.line()) : value.source();
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": ", value.field().empty() ? "document" : value.field(), ": ", why));
}

// auth.tenants: [{name: vision, gpus: 8, borrow: true}]. Absent or null
// leaves `out` as it is; a list replaces it.
absl::Status ParseTenants(const YamlValue& list, std::vector<TenantConfig>& out) {
  if (list.IsNull()) return absl::OkStatus();
  if (!list.IsSequence()) return list.Error("is not a list of {name, gpus, borrow}");
  absl::StatusOr<std::vector<YamlValue>> items = list.List(0, kMaxCredentialEntries);
  if (!items.ok()) return items.status();
  std::vector<TenantConfig> tenants;
  for (const YamlValue& item : *items) {
    absl::StatusOr<YamlMap> m = item.Map({"name", "gpus", "borrow"});
    if (!m.ok()) return m.status();
    TenantConfig t;
    const YamlValue name = m->Get("name");
    if (!name.Present()) return name.Error("missing (a tenant's name, as users' tenant: names it)");
    if (absl::Status st = m->Read("name", t.name, service::kMaxTenantBytes); !st.ok()) return st;
    if (t.name.empty() || !IsPrintableText(t.name)) return name.Error("is not a printable name");
    if (absl::Status st = m->Read("gpus", t.gpus, IntRange{0, 1 << 20}); !st.ok()) return st;
    if (absl::Status st = m->Read("borrow", t.borrow); !st.ok()) return st;
    for (const TenantConfig& before : tenants) {
      if (before.name == t.name) return name.Error("is listed twice");
    }
    tenants.push_back(std::move(t));
  }
  out = std::move(tenants);
  return absl::OkStatus();
}

absl::Status ParseAuthSection(const YamlValue& section, AuthConfig& out) {
  absl::StatusOr<YamlMap> m = section.Map({"mode", "users", "admins", "nodes", "node_join", "tenants"});
  if (!m.ok()) return m.status();
  if (m->Has("mode")) {
    std::string mode;
    if (absl::Status st = m->Read("mode", mode); !st.ok()) return st;
    if (mode != "tokens" && mode != "none") return m->Get("mode").Error("is not tokens or none");
    out.required = mode == "tokens";
  }
  absl::Status st;
  st.Update(ParseCredentials(m->Get("users"), /*named=*/true, /*with_tenant=*/true, out.users));
  st.Update(ParseCredentials(m->Get("admins"), true, false, out.admins));
  st.Update(ParseCredentials(m->Get("nodes"), true, false, out.nodes));
  st.Update(ParseCredentials(m->Get("node_join"), false, false, out.node_join));
  st.Update(ParseTenants(m->Get("tenants"), out.tenants));
  return st;
}

absl::Status ParseTlsSection(const YamlValue& section, TlsConfig& out) {
  absl::StatusOr<YamlMap> m =
      section.Map({"cert", "key", "client_ca", "require_node_certificates", "plaintext"});
  if (!m.ok()) return m.status();
  absl::Status st;
  st.Update(m->Read("cert", out.cert, service::kMaxPathBytes));
  st.Update(m->Read("key", out.key, service::kMaxPathBytes));
  st.Update(m->Read("client_ca", out.client_ca, service::kMaxPathBytes));
  st.Update(m->Read("require_node_certificates", out.require_node_certificates));
  st.Update(m->Read("plaintext", out.plaintext));
  return st;
}

}  // namespace synergy::daemon
