#include "service/credentials.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "service/channel.h"

namespace synergy::service {
namespace {

std::string Hex(const unsigned char* data, size_t size) {
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(data), size));
}

}  // namespace

std::string Sha256Hex(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr);
  return Hex(digest, size);
}

std::string HmacSha256Hex(std::string_view key, std::string_view message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &size);
  return Hex(mac, size);
}

std::string RandomHex(int bytes) {
  std::vector<unsigned char> buffer(bytes);
  if (RAND_bytes(buffer.data(), bytes) != 1) return "";
  return Hex(buffer.data(), buffer.size());
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool IsSha256Hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

absl::StatusOr<std::string> ReadCredentialYaml(const YamlValue& value) {
  // A list, a map or null shows as (a list), (a map), (null): nothing secret.
  if (!value.IsScalar()) return value.Error("is not a string");
  // No byte limit here: the reader's limit error would echo the value, and
  // ValidateCredentialText bounds it without doing so.
  absl::StatusOr<std::string> text = value.String(std::numeric_limits<size_t>::max());
  if (!text.ok()) return text.status();
  if (absl::Status st = ValidateCredentialText(*text, value.field()); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(value.source(), ":", value.line(), ": ", st.message()));
  }
  return text;
}

}  // namespace synergy::service
