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
// hash-credential` prints it) or `token:` (the credential itself, hashed on
// load; for tests and demos). Errors name the file, line and field.
#include <string>

#include "absl/status/status.h"
#include "daemon/config.h"
#include "yaml-cpp/yaml.h"

namespace synergy::daemon {

absl::Status ParseAuthSection(const YAML::Node& node, const std::string& source, AuthConfig& out);
absl::Status ParseTlsSection(const YAML::Node& node, const std::string& source, TlsConfig& out);

}  // namespace synergy::daemon
