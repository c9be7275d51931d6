// Job spec YAML (synergyctl submit -f): bytes -> ParseJobSpecYaml. An
// accepted spec passes the checks synergyd applies to every SubmitJob that
// do not need the cluster.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_checks.h"
#include "service/job_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto spec = synergy::service::ParseJobSpecYaml(text, "fuzz.yaml");
  if (!spec.ok()) {
    synergy::fuzz::CheckRefusal(spec.status(), "fuzz.yaml");
    return 0;
  }
  absl::Status again = synergy::service::ValidateJobSpec(*spec, synergy::service::JobLimits{});
  if (!again.ok()) synergy::fuzz::Fail("an accepted spec fails ValidateJobSpec", again.message());
  return 0;
}
