#pragma once
// Job specs at the edges: the YAML a user writes (synergyctl submit -f) and
// the checks synergyd applies to every SubmitJob, whoever sent it. Errors
// name the file and line (YAML) or the field (spec.gpus) and the value.
#include <string>

#include "absl/status/statusor.h"
#include "synergy/model_zoo.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::service {

// Parses a job spec file. Fields: name, model, gpus, iterations, command
// (a list, or a string split on spaces), env (a map), max_retries,
// uses_agent, profile, priority, tenant. An unknown field is an error.
absl::StatusOr<v1::JobSpec> ParseJobSpecYaml(const std::string& text, const std::string& file);

// Priority classes run from 0 (the default) to this.
inline constexpr int kMaxPriorityClass = 1000;

struct JobLimits {
  // GPUs the largest job may ask for: the cluster's GPUs (0 = no node has
  // registered yet, so nothing to compare with).
  int max_gpus = 0;
  const ModelZoo* zoo = nullptr;  // when set, spec.model must be in it (or "")
};

// The checks behind SubmitJob: gpus > 0 and within the cluster, a command,
// iterations >= 0, max_retries >= -1, a priority class, a known model, env
// names valid.
absl::Status ValidateJobSpec(const v1::JobSpec& spec, const JobLimits& limits);

}  // namespace synergy::service
