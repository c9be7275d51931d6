// Cluster YAML (synergy-sim --cluster): bytes -> ParseCluster. An accepted
// cluster is within config_loader.h's bounds.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_checks.h"
#include "synergy/config_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using synergy::fuzz::Fail;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto cluster = synergy::ParseCluster(text, "fuzz.yaml");
  if (!cluster.ok()) {
    synergy::fuzz::CheckRefusal(cluster.status(), "fuzz.yaml");
    return 0;
  }
  if (cluster->num_servers() < 1 || cluster->num_servers() > synergy::kMaxServers) Fail("servers", "");
  for (const synergy::ServerSpec& s : cluster->servers()) {
    const synergy::Resources& c = s.capacity;
    if (c.gpus < 1 || c.gpus > synergy::kMaxGpusPerServer) Fail("gpus", s.name);
    if (!(c.cpus > 0 && c.cpus <= synergy::kMaxCpusPerServer)) Fail("cpus", s.name);
    if (!(c.mem_gb > 0 && c.mem_gb <= synergy::kMaxMemoryGbPerServer)) Fail("memory_gb", s.name);
    if (!(c.storage_mbps >= 0 && c.storage_mbps <= synergy::kMaxStorageMbpsPerServer)) Fail("storage", s.name);
  }
  return 0;
}
