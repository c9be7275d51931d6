// synergy-node's config (synergy-node --config): bytes -> ParseNodeConfig
// on the built-in defaults. An accepted config is within the bounds
// node/node_config.h states: nothing sized by it can be larger than a real
// server, and its credentials can go into a gRPC header.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "fuzz_checks.h"
#include "node/node_config.h"

namespace {

using synergy::fuzz::Fail;

void CheckIds(const std::vector<int>& ids, int max_id, const char* what) {
  std::set<int> seen;
  for (int id : ids) {
    if (id < 0 || id > max_id || !seen.insert(id).second) Fail(what, std::to_string(id));
  }
}

void CheckCredential(const std::string& credential, const char* what) {
  if (credential.size() > 4096) Fail(what, "longer than 4096");
  for (char c : credential) {
    if (c < 0x21 || c > 0x7e) Fail(what, "not printable ASCII");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto c = synergy::node::ParseNodeConfig(text, "fuzz.yaml", synergy::node::NodeConfig{});
  if (!c.ok()) {
    synergy::fuzz::CheckRefusal(c.status(), "fuzz.yaml");
    return 0;
  }
  if (c->gpu_count < 0 || c->gpu_count > 1024) Fail("gpus", std::to_string(c->gpu_count));
  if (!c->gpu_ids.empty() && static_cast<int>(c->gpu_ids.size()) != c->gpu_count) Fail("gpu ids and count", "");
  CheckIds(c->gpu_ids, 1023, "gpu id");
  if (c->cpu_ids.size() > 65536) Fail("cpus", std::to_string(c->cpu_ids.size()));
  CheckIds(c->cpu_ids, 65535, "cpu id");
  if (c->cpu_slots < 0 || c->cpu_slots > 65536) Fail("cpu_slots", std::to_string(c->cpu_slots));
  if (!(c->memory_gb >= 0 && c->memory_gb <= 1e6)) Fail("memory_gb", "");
  if (c->scheduler.empty()) Fail("scheduler empty", "");
  CheckCredential(c->token, "token");
  CheckCredential(c->join_token, "join_token");
  if (c->accounts.size() > 4096) Fail("accounts", "");
  for (const auto& [user, account] : c->accounts) {
    if (user.empty() || user.size() > 64 || account.empty() || account.size() > 64) Fail("account", user);
  }
  for (const std::string& name : c->job_env_passthrough) {
    if (name.empty() || name.rfind("SYNERGY_", 0) == 0) Fail("job_env_passthrough", name);
  }
  return 0;
}
