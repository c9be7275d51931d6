// What synergyd's Slurm executor reads of Slurm: bytes -> ParseSinfoJson
// and ParseSqueueJson. A refusal names its source; what is accepted keeps
// every bound the parser promises.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_checks.h"
#include "slurm/slurm_json.h"

namespace {

// A refusal, by the fuzz rules of the message; UNAVAILABLE only for a
// document with Slurm's own "errors" list (slurmctld unreachable: not bad
// input, Slurm unreadable).
void CheckSlurmRefusal(const absl::Status& status, const char* source) {
  if (status.code() == absl::StatusCode::kUnavailable) {
    if (std::string(status.message()).find(": Slurm reports ") == std::string::npos) {
      synergy::fuzz::Fail("UNAVAILABLE without Slurm's errors", std::string(status.message()));
    }
    synergy::fuzz::CheckRefusal(absl::InvalidArgumentError(status.message()), source);
    return;
  }
  synergy::fuzz::CheckRefusal(status, source);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto nodes = synergy::slurm::ParseSinfoJson(text, size % 2 == 0 ? "" : "synergy");
  if (!nodes.ok()) {
    CheckSlurmRefusal(nodes.status(), "sinfo --json");
  } else {
    for (const auto& n : *nodes) {
      if (n.name.empty() || n.gpus < 0 || n.gpus > 1024 || n.cpus < 0) synergy::fuzz::Fail("a node out of bounds", n.name);
    }
  }
  auto jobs = synergy::slurm::ParseSqueueJson(text);
  if (!jobs.ok()) {
    CheckSlurmRefusal(jobs.status(), "squeue --json");
  } else {
    for (const auto& j : *jobs) {
      if (j.id < 1 || j.exit_code < 0 || j.exit_code > 255 || j.signal < 0 || j.signal > 127) {
        synergy::fuzz::Fail("a job out of bounds", j.name);
      }
      auto key = synergy::slurm::LeaseOfSlurmJobName(j.name);
      if (key && synergy::slurm::SlurmJobName(key->job_id, key->epoch) != j.name) {
        synergy::fuzz::Fail("a lease's name does not round-trip", j.name);
      }
    }
  }
  return 0;
}
