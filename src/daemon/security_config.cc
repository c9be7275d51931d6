#include "daemon/security_config.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "service/credentials.h"

namespace synergy::daemon {
namespace {

absl::Status At(const std::string& source, const YAML::Node& node, const std::string& field,
                const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(source, ":", node.Mark().line + 1, ": ", field, ": ", why));
}

// A scalar key, or an error (yaml-cpp throws on a non-scalar key).
absl::StatusOr<std::string> KeyOf(const std::string& source, const YAML::Node& key, const std::string& where) {
  if (!key.IsScalar()) return At(source, key, where, "a key must be a plain name");
  return key.Scalar();
}

absl::Status ScalarString(const std::string& source, const YAML::Node& v, const std::string& field,
                          std::string& out) {
  if (!v.IsScalar()) return At(source, v, field, "must be a string");
  out = v.Scalar();
  return absl::OkStatus();
}

absl::Status ScalarBool(const std::string& source, const YAML::Node& v, const std::string& field, bool& out) {
  if (!v.IsScalar()) return At(source, v, field, "must be true or false");
  const std::string s = absl::AsciiStrToLower(v.Scalar());
  if (s == "true" || s == "yes" || s == "on") {
    out = true;
  } else if (s == "false" || s == "no" || s == "off") {
    out = false;
  } else {
    return At(source, v, field, absl::StrCat("'", v.Scalar(), "' is not true or false"));
  }
  return absl::OkStatus();
}

// A printable name of at most 64 characters from [A-Za-z0-9._@-].
bool IsPrincipalName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (unsigned char c : name) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '_' && c != '-' && c != '@') return false;
  }
  return true;
}

// One list of credential entries: `field` is e.g. "auth.users".
absl::Status ParseCredentials(const YAML::Node& list, const std::string& source, const std::string& field,
                              bool named, bool with_tenant, std::vector<CredentialEntry>& out) {
  if (list.IsNull()) return absl::OkStatus();
  if (!list.IsSequence()) return At(source, list, field, "must be a list of {name, token_sha256}");
  out.clear();
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node& e = list[i];
    const std::string where = absl::StrCat(field, "[", i, "]");
    if (!e.IsMap()) return At(source, e, where, "must be a map");
    CredentialEntry entry;
    std::string token, digest;
    for (const auto& kv : e) {
      auto key = KeyOf(source, kv.first, where);
      if (!key.ok()) return key.status();
      const std::string f = absl::StrCat(where, ".", *key);
      absl::Status st;
      if (*key == "name" && named) {
        st = ScalarString(source, kv.second, f, entry.name);
      } else if (*key == "tenant" && with_tenant) {
        st = ScalarString(source, kv.second, f, entry.tenant);
      } else if (*key == "token") {
        st = ScalarString(source, kv.second, f, token);
      } else if (*key == "token_sha256") {
        st = ScalarString(source, kv.second, f, digest);
      } else {
        std::vector<std::string> fields;
        if (named) fields.push_back("name");
        if (with_tenant) fields.push_back("tenant");
        fields.insert(fields.end(), {"token", "token_sha256"});
        return At(source, kv.first, f, absl::StrCat("unknown field (fields: ", absl::StrJoin(fields, ", "), ")"));
      }
      if (!st.ok()) return st;
    }
    if (named && !IsPrincipalName(entry.name)) {
      return At(source, e, where + ".name", "required: 1-64 characters of A-Z a-z 0-9 . _ @ -");
    }
    if (!token.empty() == !digest.empty()) {
      return At(source, e, where, "needs exactly one of token or token_sha256");
    }
    if (!token.empty()) {
      // A short credential can be guessed; 16 characters is the least that
      // openssl rand -hex 8 gives, and tests use longer ones.
      if (token.size() < 16) return At(source, e, where + ".token", "is shorter than 16 characters");
      entry.sha256 = service::Sha256Hex(token);
    } else {
      if (!service::IsSha256Hex(digest)) {
        return At(source, e, where + ".token_sha256", "is not 64 hex digits (a SHA-256 digest)");
      }
      entry.sha256 = absl::AsciiStrToLower(digest);
    }
    out.push_back(std::move(entry));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseAuthSection(const YAML::Node& node, const std::string& source, AuthConfig& out) {
  if (!node.IsMap()) return At(source, node, "auth", "must be a map (mode, users, admins, nodes, node_join)");
  for (const auto& kv : node) {
    auto key = KeyOf(source, kv.first, "auth");
    if (!key.ok()) return key.status();
    const std::string f = absl::StrCat("auth.", *key);
    absl::Status st;
    if (*key == "mode") {
      std::string mode;
      st = ScalarString(source, kv.second, f, mode);
      if (st.ok() && mode != "tokens" && mode != "none") {
        st = At(source, kv.second, f, absl::StrCat("'", mode, "' is not tokens or none"));
      }
      out.required = mode != "none";
    } else if (*key == "users") {
      st = ParseCredentials(kv.second, source, f, true, true, out.users);
    } else if (*key == "admins") {
      st = ParseCredentials(kv.second, source, f, true, false, out.admins);
    } else if (*key == "nodes") {
      st = ParseCredentials(kv.second, source, f, true, false, out.nodes);
    } else if (*key == "node_join") {
      st = ParseCredentials(kv.second, source, f, false, false, out.node_join);
    } else {
      st = At(source, kv.first, f, "unknown setting (settings: mode, users, admins, nodes, node_join)");
    }
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status ParseTlsSection(const YAML::Node& node, const std::string& source, TlsConfig& out) {
  if (!node.IsMap()) return At(source, node, "tls", "must be a map (cert, key, client_ca, plaintext)");
  for (const auto& kv : node) {
    auto key = KeyOf(source, kv.first, "tls");
    if (!key.ok()) return key.status();
    const std::string f = absl::StrCat("tls.", *key);
    absl::Status st;
    if (*key == "cert") {
      st = ScalarString(source, kv.second, f, out.cert);
    } else if (*key == "key") {
      st = ScalarString(source, kv.second, f, out.key);
    } else if (*key == "client_ca") {
      st = ScalarString(source, kv.second, f, out.client_ca);
    } else if (*key == "require_node_certificates") {
      st = ScalarBool(source, kv.second, f, out.require_node_certificates);
    } else if (*key == "plaintext") {
      st = ScalarBool(source, kv.second, f, out.plaintext);
    } else {
      st = At(source, kv.first, f,
              "unknown setting (settings: cert, key, client_ca, require_node_certificates, plaintext)");
    }
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace synergy::daemon
