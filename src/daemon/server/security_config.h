#pragma once
// The `auth:` and `tls:` sections of synergyd.yaml (docs/security.md):
//
//   auth:
//     mode: tokens                  # tokens (default) | none (loopback only)
//     users:  [{name: alice, tenant: vision, token_sha256: <64 hex>}]
//     admins: [{name: ops, token_sha256: ...}]
//     nodes:  [{name: n1, token_sha256: ...}]
//     node_join: [{token_sha256: ...}]
//   tls:
//     cert: /etc/synergy/tls/synergyd.crt
//     key: /etc/synergy/tls/synergyd.key
//     client_ca: ""                 # CA of client certificates (mutual TLS)
//     require_node_certificates: false
//     plaintext: false              # loopback only
//
// Each credential is `token_sha256:` (its SHA-256 in hex; `synergyctl
// hash-credential` prints it) or `token:` (the credential itself, at least
// 16 characters of printable ASCII, hashed on load; for tests and demos),
// exactly one of them. Names are 1-64 characters of A-Z a-z 0-9 . _ @ -.
// A section overlays `out` field by field: a list given (`users: []`
// included) replaces the one before it; a key with no value (`users:`)
// leaves it. Errors have the YAML
// reader's format (synergy/yaml_reader.h) and never echo a credential or a
// digest: "synergyd.yaml:7: auth.users[0].token: is shorter than 16 characters".
#include <cstddef>

#include "absl/status/status.h"
#include "daemon/server/config.h"
#include "synergy/yaml_reader.h"

namespace synergy::daemon {

// The most entries one of users, admins, nodes and node_join may list.
inline constexpr size_t kMaxCredentialEntries = 4096;

absl::Status ParseAuthSection(const YamlValue& section, AuthConfig& out);
absl::Status ParseTlsSection(const YamlValue& section, TlsConfig& out);

// "file:line: field: why", without the value (for credentials).
absl::Status RefuseWithoutValue(const YamlValue& value, absl::string_view why);

}  // namespace synergy::daemon
