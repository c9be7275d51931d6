#include "service/job_spec.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "yaml-cpp/yaml.h"

namespace synergy::service {
namespace {

const std::set<std::string>& KnownFields() {
  static const std::set<std::string> fields = {"name",        "model",      "gpus",   "iterations",
                                               "command",     "env",        "tenant", "max_retries",
                                               "uses_agent",  "profile",    "priority"};
  return fields;
}

std::string Where(const std::string& file, const YAML::Node& node) {
  return absl::StrCat(file, ":", node.Mark().line + 1);
}

template <typename T>
absl::Status Read(const YAML::Node& node, const std::string& file, const std::string& field,
                  T& out) {
  try {
    out = node.as<T>();
    return absl::OkStatus();
  } catch (const YAML::Exception&) {
    return absl::InvalidArgumentError(absl::StrCat(Where(file, node), ": ", field, ": '",
                                                   node.IsScalar() ? node.Scalar() : "(not a value)",
                                                   "' is not valid"));
  }
}

}  // namespace

absl::StatusOr<v1::JobSpec> ParseJobSpecYaml(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ":", e.mark.line + 1, ": not valid YAML: ", e.msg));
  }
  if (!root.IsMap()) return absl::InvalidArgumentError(absl::StrCat(file, ": not a map of job fields"));
  v1::JobSpec spec;
  spec.set_max_retries(-1);
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& value = kv.second;
    if (!KnownFields().count(key)) {
      return absl::InvalidArgumentError(absl::StrCat(Where(file, kv.first), ": unknown field '", key,
                                                     "' (fields: ", absl::StrJoin(KnownFields(), ", "),
                                                     ")"));
    }
    absl::Status st;
    if (key == "name" || key == "model" || key == "tenant") {
      std::string v;
      st = Read(value, file, key, v);
      if (key == "name") spec.set_name(v);
      if (key == "model") spec.set_model(v);
      if (key == "tenant") spec.set_tenant(v);
    } else if (key == "gpus" || key == "max_retries" || key == "priority") {
      int v = 0;
      st = Read(value, file, key, v);
      if (key == "gpus") spec.set_gpus(v);
      if (key == "max_retries") spec.set_max_retries(v);
      if (key == "priority") spec.set_priority(v);
    } else if (key == "iterations") {
      int64_t v = 0;
      st = Read(value, file, key, v);
      spec.set_iterations(v);
    } else if (key == "uses_agent" || key == "profile") {
      bool v = false;
      st = Read(value, file, key, v);
      if (key == "uses_agent") spec.set_uses_agent(v);
      if (key == "profile") spec.set_profile(v);
    } else if (key == "command") {
      if (value.IsScalar()) {
        for (absl::string_view part : absl::StrSplit(value.Scalar(), ' ', absl::SkipEmpty())) {
          spec.add_command(std::string(part));
        }
      } else if (value.IsSequence()) {
        for (const YAML::Node& part : value) {
          std::string v;
          st = Read(part, file, "command[]", v);
          if (!st.ok()) break;
          spec.add_command(v);
        }
      } else {
        st = absl::InvalidArgumentError(absl::StrCat(Where(file, value), ": command: not a list or a string"));
      }
    } else if (key == "env") {
      if (!value.IsMap()) {
        st = absl::InvalidArgumentError(absl::StrCat(Where(file, value), ": env: not a map"));
      } else {
        for (const auto& e : value) {
          std::string name, v;
          st = Read(e.first, file, "env", name);
          if (st.ok()) st = Read(e.second, file, absl::StrCat("env.", name), v);
          if (!st.ok()) break;
          (*spec.mutable_env())[name] = v;
        }
      }
    }
    if (!st.ok()) return st;
  }
  if (auto st = ValidateJobSpec(spec, JobLimits{}); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": ", st.message()));
  }
  return spec;
}

absl::Status ValidateJobSpec(const v1::JobSpec& spec, const JobLimits& limits) {
  if (spec.gpus() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.gpus: ", spec.gpus(), " is not a positive GPU count"));
  }
  if (limits.max_gpus > 0 && spec.gpus() > limits.max_gpus) {
    return absl::InvalidArgumentError(absl::StrCat("spec.gpus: ", spec.gpus(),
                                                   " is more than the cluster's ", limits.max_gpus,
                                                   " GPUs"));
  }
  if (spec.command_size() == 0 || spec.command(0).empty()) {
    return absl::InvalidArgumentError("spec.command: required (the job's argv)");
  }
  if (spec.iterations() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.iterations: ", spec.iterations(), " is negative"));
  }
  if (spec.uses_agent() && spec.iterations() == 0) {
    return absl::InvalidArgumentError("spec.iterations: required (> 0) for a job that uses the agent");
  }
  if (spec.profile() && !spec.uses_agent()) {
    return absl::InvalidArgumentError("spec.profile: needs uses_agent (only the agent can measure)");
  }
  if (spec.priority() < 0 || spec.priority() > kMaxPriorityClass) {
    return absl::InvalidArgumentError(absl::StrCat("spec.priority: ", spec.priority(), " is not a priority class (0 to ",
                                                   kMaxPriorityClass, ")"));
  }
  if (spec.max_retries() < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.max_retries: ", spec.max_retries(), " is below -1 (the default)"));
  }
  if (limits.zoo != nullptr && !spec.model().empty() && limits.zoo->Find(spec.model()) < 0) {
    std::vector<std::string> names;
    for (const ModelSpec& m : limits.zoo->models()) names.push_back(m.name);
    return absl::InvalidArgumentError(absl::StrCat("spec.model: unknown model '", spec.model(),
                                                   "' (known: ", absl::StrJoin(names, ", "), ")"));
  }
  for (const auto& [name, value] : spec.env()) {
    if (name.empty() || name.find('=') != std::string::npos || name.rfind("SYNERGY_", 0) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("spec.env: '", name, "' is not a variable name a job may set"));
    }
  }
  return absl::OkStatus();
}

}  // namespace synergy::service
