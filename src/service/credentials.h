#pragma once
// Secrets and how they are compared: SHA-256 digests of credentials, HMACs
// that derive per-lease and per-node credentials from the daemon's key, a
// CSPRNG, and comparison in constant time. All from OpenSSL's libcrypto, so
// that nothing security-relevant is hand-written.
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "synergy/yaml_reader.h"

namespace synergy::service {

// Lower-case hex of SHA-256(text): how credentials are kept in configs.
std::string Sha256Hex(std::string_view text);

// Lower-case hex of HMAC-SHA256(key, message): 256 bits, so a derived
// credential cannot be guessed without the key.
std::string HmacSha256Hex(std::string_view key, std::string_view message);

// `bytes` bytes from the operating system's CSPRNG, as lower-case hex;
// "" if it failed (never a weak fallback).
std::string RandomHex(int bytes);

// a == b in time that depends only on their lengths (CRYPTO_memcmp), so a
// caller learns nothing from how long a refusal took.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// True for 64 lower- or upper-case hex digits (a SHA-256 digest).
bool IsSha256Hex(std::string_view text);

// A credential (or its digest) from a config file: printable ASCII of at
// most 4096 bytes (what a gRPC header carries; ValidateCredentialText).
// Whatever is wrong with it, the error names the file, line and field and
// never echoes the value.
absl::StatusOr<std::string> ReadCredentialYaml(const YamlValue& value);

}  // namespace synergy::service
