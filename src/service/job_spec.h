#pragma once
// Job specs at the edges: the YAML a user writes (synergyctl submit -f) and
// the checks synergyd applies to every SubmitJob, whoever sent it. Errors
// name the file and line (YAML) or the field (spec.gpus) and the value.
#include <string>

#include "absl/status/statusor.h"
#include "synergy/model_zoo.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::service {

// The fields of a job spec file, each described in docs/job-spec.md.
inline constexpr const char* kJobSpecFields[] = {"name",    "model",      "gpus",    "iterations",
                                                 "command", "env",        "tenant",  "max_retries",
                                                 "uses_agent", "profile", "priority",
                                                 "profile_points", "profile_gpu_type", "time_limit",
                                                 "after_ok", "after_any", "array"};

// Parses a job spec file (kJobSpecFields; command is a list, or a string
// split on spaces; env a map; profile_points a list of {cpus, mem_gb,
// throughput} maps). An unknown field is an error.
absl::StatusOr<v1::JobSpec> ParseJobSpecYaml(const std::string& text, const std::string& file);

// Priority classes run from 0 (the default) to this.
inline constexpr int kMaxPriorityClass = 1000;

struct JobLimits {
  // GPUs the largest job may ask for: the cluster's GPUs (0 = no node has
  // registered yet, so nothing to compare with).
  int max_gpus = 0;
  const ModelZoo* zoo = nullptr;  // when set, spec.model must be in it (or "")
  // What max_gpus counts, for the refusal ("" the cluster's GPUs).
  std::string max_gpus_of;
};

// The checks behind SubmitJob: every bound of ValidateJobSpecFields
// (request_validation.h: lengths, characters, argv and env sizes, gpus > 0,
// a command, iterations, max_retries, a priority class, env names), then
// what needs the cluster and the zoo: gpus within the cluster, a known
// model; and iterations for agent jobs, profile only with the agent.
absl::Status ValidateJobSpec(const v1::JobSpec& spec, const JobLimits& limits);

}  // namespace synergy::service
