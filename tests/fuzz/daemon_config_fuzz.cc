// synergyd's config (synergyd --config): bytes -> ParseDaemonConfig on the
// built-in defaults, then ValidateSecurity as LoadDaemonConfig does. An
// accepted config is within the bounds daemon/server/config.h states, and holds
// only credentials that passed security_config.h's checks.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "daemon/server/config.h"
#include "fuzz_checks.h"
#include "synergy/mechanism.h"
#include "synergy/policy.h"

namespace {

using synergy::fuzz::Fail;

bool InRange(double v, double low, double high, bool low_exclusive) {
  return (low_exclusive ? v > low : v >= low) && v <= high;
}

void CheckCredentials(const std::vector<synergy::daemon::CredentialEntry>& list, bool named) {
  for (const synergy::daemon::CredentialEntry& e : list) {
    if (named != !e.name.empty() || e.name.size() > 64) Fail("credential name", e.name);
    if (e.sha256.size() != 64) Fail("credential digest length", e.name);
    for (char c : e.sha256) {
      if (!absl::ascii_isxdigit(c) || absl::ascii_isupper(c)) Fail("credential digest", e.sha256);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto c = synergy::daemon::ParseDaemonConfig(text, "fuzz.yaml", synergy::daemon::DaemonConfig{});
  if (!c.ok()) {
    synergy::fuzz::CheckRefusal(c.status(), "fuzz.yaml");
    return 0;
  }
  if (!InRange(c->round_s, 0, 86400, true)) Fail("round_s", "");
  if (!InRange(c->lease_grace_s, 0, 86400, false)) Fail("lease_grace_s", "");
  if (!InRange(c->heartbeat_timeout_s, 0, 86400, true)) Fail("heartbeat_timeout_s", "");
  if (!InRange(c->profile_wait_s, 0, 1e7, false)) Fail("profile_wait_s", "");
  if (c->heartbeat_interval_ms < 1 || c->heartbeat_interval_ms > 60000) Fail("heartbeat_interval_ms", "");
  if (c->max_retries < 0 || c->max_retries > 100) Fail("max_retries", "");
  if (c->listen.empty() || c->state_db.empty()) Fail("listen or state_db empty", "");
  if (!synergy::MakePolicy(c->policy).ok()) Fail("policy", c->policy);
  if (!synergy::MakeMechanism(c->mechanism).ok()) Fail("mechanism", c->mechanism);
  CheckCredentials(c->auth.users, true);
  CheckCredentials(c->auth.admins, true);
  CheckCredentials(c->auth.nodes, true);
  CheckCredentials(c->auth.node_join, false);
  absl::Status security = synergy::daemon::ValidateSecurity(*c, "fuzz.yaml");
  if (!security.ok()) synergy::fuzz::CheckRefusal(security, "fuzz.yaml");
  return 0;
}
