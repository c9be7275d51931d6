// Model zoo YAML (synergy-sim --models, synergyd's models:): bytes ->
// ParseModelZoo. An accepted zoo answers every question the mechanisms ask.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_checks.h"
#include "synergy/config_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using synergy::fuzz::Fail;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto zoo = synergy::ParseModelZoo(text, "fuzz.yaml");
  if (!zoo.ok()) {
    synergy::fuzz::CheckRefusal(zoo.status(), "fuzz.yaml");
    return 0;
  }
  if (zoo->models().empty() || zoo->models().size() > synergy::kMaxModels) Fail("models", "");
  for (const synergy::ModelSpec& m : zoo->models()) {
    if (zoo->model(zoo->Find(m.name)).name != m.name) Fail("Find", m.name);
    const synergy::SensitivityProfile& p = m.profile;
    for (double cpus : p.cpu_points()) {
      for (double mem : p.mem_points_gb()) {
        const double t = p.ThroughputAt(cpus, mem);
        if (!(t >= 0 && t <= synergy::kMaxRelativeThroughput)) Fail("throughput", m.name);
      }
    }
    p.BestPointWithin(synergy::Resources{1, 24, 500, 0}, 1.0);
  }
  return 0;
}
